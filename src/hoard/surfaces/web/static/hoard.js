// hoard web app: live updates (polling /live with an ETag), the command palette (Ctrl/Cmd-K),
// unsaved-editor protection, the copy button. No inline script anywhere (strict CSP).
(function () {
  "use strict";
  var etag = null;
  function changed() {
    document.body.dispatchEvent(new CustomEvent("hoard:changed", { bubbles: true }));
  }
  function poll() {
    var headers = etag ? { "If-None-Match": etag } : {};
    fetch("/live", { headers: headers, cache: "no-store", credentials: "same-origin" })
      .then(function (r) {
        if (r.status === 200) {
          var next = r.headers.get("etag");
          if (etag !== null && next !== etag) { changed(); }
          etag = next;
        }
      })
      .catch(function () {})
      .finally(function () { window.setTimeout(poll, 1000); });
  }

  // An editor with unsaved text: warn before leaving, never let a live refresh replace it.
  var dirty = false;
  function watchEditor() {
    var form = document.querySelector("form[data-editor]");
    if (!form) { return; }
    var area = form.querySelector("textarea");
    var initial = area ? area.value : "";
    if (area) {
      area.addEventListener("input", function () { dirty = area.value !== initial; });
    }
    form.addEventListener("submit", function () { dirty = false; });
    document.addEventListener("keydown", function (e) {
      if ((e.ctrlKey || e.metaKey) && (e.key === "s" || e.key === "S")) {
        e.preventDefault();
        dirty = false;
        form.requestSubmit();
      }
    });
    window.addEventListener("beforeunload", function (e) {
      if (dirty) { e.preventDefault(); e.returnValue = ""; }
    });
  }
  document.addEventListener("htmx:beforeSwap", function (e) {
    var target = e.detail.target;
    if (target && target.querySelector && target.querySelector("form[data-editor]") && dirty) {
      e.detail.shouldSwap = false;
    }
  });

  // Command palette.
  function palette() {
    var dialog = document.getElementById("palette");
    if (!dialog) { return; }
    var input = document.getElementById("palette-q");
    var form = document.getElementById("palette-form");
    function open() {
      if (!dialog.open) { dialog.showModal(); }
      input.select();
    }
    document.addEventListener("keydown", function (e) {
      if ((e.ctrlKey || e.metaKey) && (e.key === "k" || e.key === "K")) {
        e.preventDefault();
        open();
      }
    });
    var button = document.getElementById("palette-open");
    if (button) { button.addEventListener("click", open); }
    form.addEventListener("submit", function (e) {
      var first = dialog.querySelector(".palette-item");
      if (first) { e.preventDefault(); window.location.href = first.getAttribute("href"); }
    });
    dialog.addEventListener("keydown", function (e) {
      if (e.key !== "ArrowDown" && e.key !== "ArrowUp") { return; }
      var items = Array.prototype.slice.call(dialog.querySelectorAll(".palette-item"));
      if (!items.length) { return; }
      var i = items.indexOf(document.activeElement);
      i = e.key === "ArrowDown" ? Math.min(i + 1, items.length - 1) : Math.max(i - 1, -1);
      e.preventDefault();
      (i < 0 ? input : items[i]).focus();
    });
  }

  // As-you-type search asks the server from data-min-chars characters on (a knob: on the
  // 13k-note bench vault even one character answers quickly), once per distinct value;
  // Enter still searches anything.
  function typing() {
    var last = new WeakMap();
    document.addEventListener("input", function (e) {
      var el = e.target;
      if (!el || !el.getAttribute || !el.hasAttribute("data-min-chars")) { return; }
      var min = parseInt(el.getAttribute("data-min-chars"), 10) || 1;
      var value = el.value.trim();
      if (value.length > 0 && value.length < min) { return; }
      if (last.get(el) === value) { return; }
      last.set(el, value);
      el.dispatchEvent(new CustomEvent("hoard:typed", { bubbles: true }));
    });
    // Its change event (when the field loses focus, as when a result is clicked) would ask
    // again for what was just answered and replace the results under the pointer: the
    // click, pressed on the old link and released on the new one, would go nowhere.
    document.addEventListener("change", function (e) {
      var el = e.target;
      if (el && el.hasAttribute && el.hasAttribute("data-min-chars")) { e.stopPropagation(); }
    }, true);
  }

  function copyButtons() {
    document.addEventListener("click", function (e) {
      var d = e.target.closest ? e.target.closest("[data-dismiss]") : null;
      if (d) {
        var gone = document.querySelector(d.getAttribute("data-dismiss"));
        if (gone) { gone.textContent = ""; }
        return;
      }
      var b = e.target.closest ? e.target.closest("[data-copy]") : null;
      if (!b) { return; }
      var field = document.querySelector(b.getAttribute("data-copy"));
      if (!field) { return; }
      field.select();
      if (navigator.clipboard) { navigator.clipboard.writeText(field.value).catch(function () {}); }
      b.textContent = "Copied";
    });
  }

  // Ticking a task on a note page: one vault_edit with the revision the page loaded; a
  // refusal (the note changed meanwhile) is shown and the box goes back.
  function tasks() {
    document.addEventListener("change", function (e) {
      var box = e.target;
      if (!box.matches || !box.matches("input.task-list-item-checkbox[data-line]")) { return; }
      var body = box.closest("[data-revision]");
      var csrf = document.querySelector("input[name=csrf]");
      var out = document.getElementById("task-outcome");
      if (!body) { return; }
      var form = new URLSearchParams();
      form.set("line", box.getAttribute("data-line"));
      form.set("checked", box.checked ? "true" : "false");
      form.set("revision", body.getAttribute("data-revision"));
      form.set("csrf", csrf ? csrf.value : "");
      box.disabled = true;
      fetch("/task/" + body.getAttribute("data-path").split("/").map(encodeURIComponent).join("/"),
            { method: "POST", body: form, credentials: "same-origin" })
        .then(function (r) { return r.json().then(function (j) { return [r.ok && !j.error, j]; }); })
        .then(function (res) {
          box.disabled = false;
          if (res[0]) {
            body.setAttribute("data-revision", res[1].revision);
            if (out) { out.textContent = ""; }
            return;
          }
          box.checked = !box.checked;
          if (out) {
            out.innerHTML = "";
            var p = document.createElement("p");
            p.className = "error";
            p.setAttribute("role", "alert");
            p.textContent = "Not saved: " + res[1].message + " Reload the page to tick it again.";
            out.appendChild(p);
          }
        })
        .catch(function () { box.disabled = false; box.checked = !box.checked; });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    tasks();
    watchEditor();
    palette();
    typing();
    copyButtons();
    poll();
  });
})();
