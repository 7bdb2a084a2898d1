"""The benchmark vault's planner and renderer: which folders and notes a vault of ``notes``
notes has, and each note's Markdown (front matter, headings, prose, lists, code, links)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import date
from itertools import accumulate
from math import isqrt

from hoard.benchmark.vault_words import (
    BOOLISH,
    CODE_BLOCKS,
    HEADINGS,
    LAST_DAY,
    LINK_DEGREES,
    LINK_PHRASES,
    MONTHS,
    NOTE_SIZES,
    TAGS,
    TEMPLATE_SLOT,
    TOP_FOLDERS,
    WORDS,
    frontmatter,
    kebab,
    tags_ok,
    title_case,
)

INDEX_CAP = 200
"""Most wikilinks an ``_INDEX.md`` lists; a bigger folder gets a closing count line."""


def large_note_count(notes: int) -> int:
    """How many 150–300 KB notes a vault gets: 1 in 2,000, and at least one from 1,000 on."""
    return max(1 if notes >= 1000 else 0, round(notes / 2000))


class NoteGenerator:
    """Plans a vault of ``notes`` notes (folders, titles, sizes, links) and renders each note's
    text, drawing every random choice from one ``random.Random(seed)`` in a fixed order."""

    def __init__(self, notes: int, seed: int) -> None:
        self.rng = r = random.Random(seed)
        self.rnd, real = r.random, WORDS["REAL"]
        vocab, known = real[:270] + WORDS["DIACRITIC"] + real[270:], {w.lower() for w in real}
        syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
        while len(vocab) < 4000:  # the long tail: pronounceable pseudo-words
            w = "".join(r.choices(syllables, k=1 + int(r.random() * 3)))
            if (w := w + "  nrskt"[int(r.random() * 7)].strip()) not in known:
                known.add(w)
                vocab.append(w)
        # Zipf-Mandelbrot weights 1 / (rank + 3) ** 1.25, in integers so no libm is involved.
        cum = list(accumulate(10**17 // (k * isqrt(isqrt(k * 10**16))) for k in range(4, 4004)))
        names = WORDS["N"] + WORDS["P"] + WORDS["T"]

        def clause(lo: int, hi: int) -> str:
            ws, x = r.choices(vocab, cum_weights=cum, k=r.randint(lo, hi)), r.random()
            if x < 0.12:
                ws.insert(r.randrange(len(ws) + 1), r.choice(names))
            elif x < 0.15:
                ws[-1] = f"`{ws[-1]}`" if x < 0.135 else f"**{ws[-1]}**"
            return " ".join(ws)

        # A sentence is a head alone, or the head and its own joint followed by a tail.
        pool = min(6000, 1500 + notes)  # small vaults need fewer distinct clauses
        heads = [c[:1].upper() + c[1:] for c in (clause(3, 8) for _ in range(pool))]
        self.pairs = [(h + ".", h + r.choice(WORDS["SEPS"])) for h in heads]
        self.tails = [clause(3, 9) + "." if r.random() < 0.7 else "" for _ in range(pool)]
        # Folders: the root, the top-level areas, then a tree at most three levels deep.
        self.notes, n_top = notes, 8 if notes >= 40 else (notes - 1) // 3
        self.folders, self.area = ["", *TOP_FOLDERS[:n_top]], ["", *TOP_FOLDERS[:n_top]]
        self.children: list[list[int]] = [list(range(1, n_top + 1))] + [
            [] for _ in TOP_FOLDERS[:n_top]
        ]
        want = max(len(self.folders), min(notes // 3, 16 * isqrt(notes * 100) // 100))
        daily_n = min((notes - want) * 6 // 100, 3650) if "daily" in self.folders else 0
        self.daily_dates, d = [], LAST_DAY
        for _ in range(daily_n):
            self.daily_dates.append(d)
            d -= 1 + (r.random() < 0.25)
        years = sorted({date.fromordinal(o).year for o in self.daily_dates})
        for y in years if daily_n > 366 else []:  # daily/YYYY/YYYY-MM-DD.md
            self._add_folder(self.folders.index("daily"), str(y))
        grow = [i for i in range(1, len(self.folders)) if self.area[i] != "daily"]
        tail = WORDS["T"] + WORDS["X"] + TAGS
        while len(self.folders) < want:
            parent = grow[r.randrange(len(grow))]
            subs = WORDS["SUB-" + self.area[parent]]
            name = r.choice(subs) if r.random() < 0.5 else kebab(r.choice(tail), True)
            taken = any(self.folders[c].rpartition("/")[2] == name for c in self.children[parent])
            if not taken and self._add_folder(parent, name).count("/") < 2:
                grow.append(len(self.folders) - 1)

    def _add_folder(self, parent: int, name: str) -> str:
        self.folders.append(f"{self.folders[parent]}/{name}".lstrip("/"))
        self.area.append(self.area[parent])
        self.children.append([])
        self.children[parent].append(len(self.folders) - 1)
        return self.folders[-1]

    def plan(self) -> None:
        r, content = self.rng, self.notes - len(self.folders)
        self.members: list[list[int]] = [[] for _ in self.folders]
        self.taken: list[set[str]] = [{"_index"} for _ in self.folders]
        self.meta: list[tuple[int, str, str, str, int]] = []  # folder, stem, title, type, updated
        self.sizes: list[int] = []
        where = {f: i for i, f in enumerate(self.folders) if self.area[i] == "daily"}
        for o in self.daily_dates:
            d = date.fromordinal(o)
            title = f"{WORDS['DAYS'][d.weekday()]} {d.day} {MONTHS[d.month - 1]} {d.year}"
            fi = where.get(f"daily/{d.year}", where.get("daily", 0))
            self._note(fi, d.isoformat(), title, "journal", o)
        spots = [i for i in range(len(self.folders)) if self.area[i] not in ("", "daily")]
        r.shuffle(spots)  # folder sizes: one note each, then Zipf (s = 1.5), half the tail tiny
        rest = content - len(self.daily_dates)
        tiny = [20 if k > 40 and r.random() < 0.5 else 1 for k in range(20, 20 + len(spots))]
        w = accumulate(10**15 // (k * isqrt(k * 10**8) * t) for k, t in enumerate(tiny, 20))
        for fi in spots[:rest] + r.choices(spots, cum_weights=list(w), k=max(0, rest - len(spots))):
            self._plan_note(fi)
        self.large = sorted(r.sample(range(content), min(content, large_note_count(self.notes))))
        for i in self.large:
            self.sizes[i] = r.randint(150_000, 290_000)
        self.all_stems = {m[1].lower() for m in self.meta}
        self.urn = list(range(len(self.meta)))  # preferential attachment: linked, then likelier
        self.n_links = 0

    def _plan_note(self, fi: int) -> None:
        r = self.rng
        updated = LAST_DAY - int(r.random() * r.random() * 3000)
        if self.area[fi] == "logs":
            kind, d = r.choice(WORDS["LOGKIND"]), date.fromordinal(LAST_DAY - 2 - r.randrange(3000))
            tech = r.choice(WORDS["T"]) + " " if r.random() < 0.4 else ""
            when, on = (d.isoformat(), f"{d.day} ") if r.random() < 0.6 else (d.isoformat()[:7], "")
            base = stem = kebab(f"{when} {tech}{kind} log", True)
            for n in range(2, 10**9):
                if stem not in self.taken[fi]:
                    break
                stem = f"{base}-{n}"
            title = f"{kind.capitalize()} log {tech}{on}{MONTHS[d.month - 1]} {d.year}"
            return self._note(fi, stem, title, "log", d.toordinal() + r.randrange(3))
        for attempt in range(1, 10**9):
            typ, _, tpl = r.choice(WORDS[self.area[fi]]).partition("|")
            title = TEMPLATE_SLOT.sub(lambda m: r.choice(WORDS[m.group(1)]), tpl)
            title = title[:1].upper() + title[1:]
            if r.random() < 0.45:  # "Title Case With Spaces.md", else kebab-case.md
                stem = title_case(title)
                title = stem if r.random() < 0.5 and ":" not in title else title
            else:
                stem = kebab(title, r.random() < 0.5)
            if attempt > 5:
                stem += f" {attempt}" if " " in stem else f"-{attempt}"
            if stem.lower() not in self.taken[fi]:
                return self._note(fi, stem, title, typ, updated)

    def _note(self, fi: int, stem: str, title: str, typ: str, updated: int) -> None:
        r = self.rng
        self.taken[fi].add(stem.lower())
        self.members[fi].append(len(self.meta))
        self.meta.append((fi, stem, title, typ, updated))
        u = r.randrange(len(NOTE_SIZES) - 1) if r.random() < 0.97 else -1  # log-normal-ish
        self.sizes.append(
            r.randint(NOTE_SIZES[u], NOTE_SIZES[u + 1]) if u >= 0 else r.randint(6000, 12000)
        )

    def _heads(self, i: int) -> tuple[list[str], int]:
        fi, _, _, typ, _ = self.meta[i]
        if typ == "journal" and self.area[fi] == "daily":
            return WORDS["DAILY"], 0
        return (WORDS["LOGH"], 0) if typ == "log" else (HEADINGS, i * 7 % len(HEADINGS))

    def _link(self, src: int) -> str:
        rnd, x, urn = self.rnd, self.rnd(), self.urn
        while x < 0.01:  # broken: a plausible name no note has
            gone = "-".join(WORDS[k][int(rnd() * len(WORDS[k]))] for k in "WJX").replace(" ", "-")
            if gone not in self.all_stems:
                return f"[[{gone}]]"
        t = urn[int(rnd() * len(urn))]
        t = urn[int(rnd() * len(urn))] if t == src else t
        urn.append(t)
        (fi, stem, title, _, _), (heads, off) = self.meta[t], self._heads(t)
        if x < 0.72 or t == src:
            return f"[[{stem}]]"
        if x < 0.84 and title.lower() != stem.lower():
            return f"[[{stem}|{title.lower()}]]"
        if x < 0.94 and (self.sizes[t] >= 700 or heads is not HEADINGS):
            return f"[[{stem}#{heads[off]}]]"
        return f"[[{self.folders[fi]}/{stem}]]" if x < 0.98 else f"![[{stem}]]"

    def _sentences(self, n: int) -> list[str]:
        heads, tails = self.rng.choices(self.pairs, k=n), self.rng.choices(self.tails, k=n)
        return [h[1] + t if t else h[0] for h, t in zip(heads, tails, strict=True)]

    def render(self, i: int) -> str:
        (fi, _, title, typ, updated), budget, rnd = self.meta[i], self.sizes[i], self.rnd
        status = {"log": "closed", "journal": "done"}.get(typ) or WORDS["STATUS"][int(rnd() * 7)]
        tags = [self.area[fi].partition("-")[0], self.folders[fi].rpartition("/")[2]]
        tags += [TAGS[int(rnd() * len(TAGS))] for _ in range(6)]
        out = [frontmatter(title, typ, status, tags_ok(tags)[: 2 + int(rnd() * 4)], updated)]
        if rnd() < 0.4:
            out.append(f"created: {date.fromordinal(updated - int(rnd() * 1500))}\n")
        alias = " ".join(kebab(title, True).split("-")[:2]) if rnd() < 0.15 else ""
        if alias[:1].isalpha() and alias not in BOOLISH and typ not in ("journal", "log"):
            out.append(f"aliases: [{alias}]\n")
        heads, off = self._heads(i)
        sents, n = self._sentences(budget // 60 + 4), 1 + int(rnd() * 4)
        parts = [f"# {title}"] if heads is not HEADINGS or rnd() < 0.7 else []
        paras, k, since = [len(parts)], 0, 0
        parts.append(" ".join(sents[:n]))
        cur, s = len(parts[-1]), n
        if budget >= 700 or heads is not HEADINGS:
            parts.append(f"## {heads[off]}")
            k = 1
        p_code = 0.12 if self.area[fi] == "tech" else 0.02
        while cur < budget:
            if since >= 2 and rnd() < 0.35:
                parts.append(f"## {heads[(off + k) % len(heads)]}")
                k, since = k + 1, 0
            x, n = rnd(), 1 + int(rnd() * 6)
            if s + n + 1 > len(sents):  # top up to about what the rest of the budget needs
                sents, s = sents[s:] + self._sentences(n + 1 + (budget - cur) // 60), 0
            chunk = sents[s : s + n + 1]
            if x < 0.6:
                paras.append(len(parts))
                block = " ".join(chunk[:-1])
            elif x < 0.6 + p_code:
                block, n = CODE_BLOCKS[int(rnd() * len(CODE_BLOCKS))], 0
            elif typ == "log":
                h = 6 + int(rnd() * 12)
                block = "\n".join(
                    f"- {h + j:02d}:{j * 7 + 3:02d} — {t}" for j, t in enumerate(chunk)
                )
            else:
                pre = "- [ ] " if typ == "journal" and rnd() < 0.5 else "- "
                block = "\n".join(pre + t for t in chunk)
            parts.append(block)
            s, cur, since = s + n + 1, cur + len(block) + 2, since + 1
        n = 60 + int(rnd() * 120) if rnd() < 0.004 else LINK_DEGREES[int(rnd() * len(LINK_DEGREES))]
        links, related = [self._link(i) for _ in range(n)], []
        self.n_links += n
        if n > 10 or (n >= 2 and rnd() < 0.25):  # hubs keep a few inline and list the rest
            cut = 3 if n > 10 else n - 1 - int(rnd() * n)
            links, related = links[:cut], links[cut:]
        for ln in links:
            phrase, j = LINK_PHRASES[int(rnd() * len(LINK_PHRASES))], paras[int(rnd() * len(paras))]
            parts[j] += "\n\n" + ln if ln[0] == "!" else " " + phrase.format(ln)
        if related:
            parts.append("Related:\n" + "\n".join("- " + ln.lstrip("!") for ln in related))
        return "".join(out) + "---\n" + "\n\n".join(parts) + "\n"

    def render_index(self, fi: int) -> str:
        leaf = self.folders[fi].rpartition("/")[2] or "vault"
        name = leaf.replace("-", " ").capitalize()
        tags = tags_ok(["index", self.area[fi].partition("-")[0] or "vault", leaf])
        updated = max([self.meta[i][4] for i in self.members[fi]], default=LAST_DAY)
        stems = sorted((self.meta[i][1] for i in self.members[fi]), key=str.lower)
        lines = [f"- [[{s}]]" for s in stems[:INDEX_CAP]]
        self.n_links += len(lines)
        if len(stems) > INDEX_CAP:
            lines.append(f"- … and {len(stems) - INDEX_CAP} more notes in this folder.")
        parts = [f"# {name}", " ".join(self._sentences(2))] + (["\n".join(lines)] if lines else [])
        if subs := [self.folders[c].rpartition("/")[2] for c in self.children[fi]]:
            parts.append("## Folders\n\n" + "\n".join(f"- `{s}/`" for s in subs))
        head = frontmatter(f"{name} Index", "index", "active", tags, updated)
        return head + "---\n" + "\n\n".join(parts) + "\n"

    def rel(self, i: int) -> str:
        fi, stem = self.meta[i][:2]
        return f"{self.folders[fi]}/{stem}.md" if self.folders[fi] else f"{stem}.md"

    def files(self) -> Iterator[tuple[str, str]]:
        for i in range(len(self.meta)):
            yield self.rel(i), self.render(i)
        for fi, folder in enumerate(self.folders):
            yield f"{folder}/_INDEX.md".lstrip("/"), self.render_index(fi)
