"""A deterministic, seeded generator of realistic Markdown vaults, for benchmarks.

The same ``(notes, seed)`` gives byte-identical files on every machine: all randomness comes from
one ``random.Random(seed)`` in a fixed order, weights are integers (no libm), dates count back
from a fixed day, and sets only answer membership. Text comes from clause pools drawn once over
a Zipf-weighted vocabulary, so a note costs a few list look-ups.
"""

from __future__ import annotations

import contextlib
import random
import re
import subprocess
import sys
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from itertools import accumulate
from math import isqrt
from pathlib import Path

__all__ = ["GeneratedVault", "generate_vault", "large_note_count"]

WRITERS, SPAWN_WRITER_FROM = 2, 5000
"""From ``SPAWN_WRITER_FROM`` notes on, ``WRITERS`` child processes create the files while this
one generates (file creation is kernel time; a thread would fight the generator for the GIL)."""
INDEX_CAP = 200
"""Most wikilinks an ``_INDEX.md`` lists; a bigger folder gets a closing count line."""


@dataclass(frozen=True)
class GeneratedVault:
    root: Path
    notes: int
    """Notes written, ``_INDEX.md`` files included."""
    bytes: int
    folders: int
    """Folders, each with an ``_INDEX.md``; the vault root is one."""
    links: int
    large_notes: list[str]
    seed: int


# One list per line key ("_" is a space). Top-level folder keys hold "type|title template"
# entries, where {K} takes a random entry of list K.
_DATA = """\
REAL the a to and of is in it for on with that this was not be are at as but so if or from by an
REAL have will can all one up out when then just also more than about into after before there which
REAL what only some no new now still again every other two first last most backup restore server
REAL config file folder note link index search query cache disk memory network router switch bridge
REAL firmware update upgrade install setup script shell command log error warning timeout retry job
REAL cron schedule daily weekly monthly release version branch commit merge test build deploy
REAL cluster node pod container image volume snapshot database table column row schema migration
REAL replica primary secondary certificate key token password secret user group permission policy
REAL rule firewall port address domain resolver proxy tunnel peer client request response latency
REAL throughput metric alert dashboard graph sensor light bulb automation scene trigger battery
REAL power outlet heater radiator thermostat window door kitchen bathroom bedroom balcony garden
REAL bike route train bus ferry ticket trip weekend morning evening night coffee breakfast dinner
REAL recipe sauce bread dough oven pan onion garlic butter flour sugar salt pepper family mother
REAL father sister brother friend colleague neighbour doctor dentist appointment tax refund salary
REAL budget invoice bill rent insurance bank account pension apartment flat lease language lesson
REAL exam grammar word book chapter article paper talk video podcast course idea plan goal task
REAL project deadline meeting review decision problem solution reason question answer summary
REAL detail example pattern design module function interface queue worker thread process lock
REAL transaction write read parse render export import format text title heading list table chart
REAL photo archive album camera phone laptop monitor keyboard cable charger printer storage drive
REAL partition mirror pool dataset quota good slow fast small large old simple broken stable
REAL careful quiet busy tired happy strange cold warm wet dark bright early late weird usual
DIACRITIC babička dědeček Příbram Nørrebro København Århus smørrebrød æbleskiver svíčková knedlíky
DIACRITIC Plzeň Brno Žižkov Třeboň čeština Müller Straße Grüße Frühstück Köln München Ærø Øresund
DIACRITIC blåbær rødgrød řízek Vánoce Šumava Krkonoše Dvořák Jürgen hygge årsopgørelse sygesikring
DIACRITIC kolo pivo chlebíček Dänemark übermorgen Brötchen Göteborg Ålborg
T Postgres SQLite WireGuard Kubernetes Proxmox Zigbee nginx restic Docker Git Python Rust systemd
T ZFS Grafana Prometheus Tailscale OPNsense Pi-hole Ansible Terraform Redis Debian SSH TLS DNS VLAN
T Syncthing Nextcloud Home_Assistant ESPHome Hue_bridge Bash Go FastAPI Django Elasticsearch
T Traefik k3s GitHub_Actions Borg Let's_Encrypt UPS NAS Raspberry_Pi
X backups upgrade setup tips troubleshooting config migration monitoring performance cheatsheet
X security certificates logging tuning cleanup restore checklist notes benchmarks internals gotchas
X rollout networking permissions
V upgrade restore debug migrate monitor secure back_up reinstall tune test
P Århus Odense København Nørrebro Bornholm Ærø Skagen Roskilde Příbram Plzeň Brno Praha Třeboň
P Český_Krumlov Žižkov Olomouc München Köln Lübeck Hamburg Görlitz Amager Møn
F Svíčková Æbleskiver Smørrebrød Knedlíky Řízek Frikadeller Rødgrød Bramboráky Kartoffelsalat
F Brötchen Apfelstrudel Koláče Flæskesteg Koldskål Rugbrød Guláš
N Mads_Kjær Freja_Sørensen Ondřej_Dvořák Jana_Nováková Søren_Østergaard Lukáš_Černý Babička
N Jürgen_Müller Anneliese_Schröder Tereza_Křížová Rasmus_Holm Jiří_Šťastný Ida_Bæk Günter_Weiß
N Klára_Růžičková Mette_Frederiksen_(not_that_one)
B Designing_Data-Intensive_Applications A_Philosophy_of_Software_Design How_Linux_Works
B The_Pragmatic_Programmer Site_Reliability_Engineering Thinking,_Fast_and_Slow Deep_Work
B The_Mythical_Man-Month Database_Internals Der_Process Babička_(Božena_Němcová)
M January February March April May June July August September October November December
D metro staircase lighthouse exam forest ferry island library train flood
A Flooded Endless Quiet Strange Broken Old Tiny Hidden Slow Green Cheap
J revamp migration rewrite prototype launch cleanup archive dashboard plan
L tax health dentist insurance bike_repair groceries garden moving citizenship
Y 2016 2017 2018 2019 2020 2021 2022 2023 2024 2025 2026
life recipe|{F}_recipe note|Weekend_in_{P} note|Cycling_from_{P}_to_{P} person|{N}
life note|Visiting_{N}_in_{P} note|{L}_notes note|Trip_to_{P}_{Y} note|{P}_{L}_{W}
life recipe|{F}_with_{W}_({N})
tech note|{T}_{X} howto|How_to_{V}_{T} decision|Decision:_{T}_over_{T} runbook|{T}_{X}_runbook
tech reference|{T}_cheatsheet howto|Setting_up_{T}_on_{T} note|{T}_{X}_({W}) reference|{T}_{W}_{X}
tech note|{T}_issue_#{Y} note|Why_"{W}"_{T}_{X}
projects project|{T}_{J} project|{P}_{J} meeting|Meeting_{M}_{Y}:_{T}_{J} note|{J}_ideas_for_{T}
projects decision|Decision:_{W}_{X} project|{A}_{W}_{J}
references review|{B} person|{N} reference|{T}_documentation article|{A}_{W}_in_{T}
references review|{B}_({Y}_reread) article|Paper:_{A}_{W}_{X}
daily
dreams dream|{A}_{D} dream|{D}_in_{P} dream|Dream_about_{D} dream|{A}_{D}_{W}
logs
personal-notes finance|Budget_{Y} journal|Private_journal_{M}_{Y} health|Health_log_{Y}
personal-notes note|{L}_thoughts note|{A}_{W}_list finance|{L}_{Y}_{W}
SUB-life recipes cycling travel family health denmark czechia housing finance garden
SUB-tech homelab networking kubernetes databases python home-automation security
SUB-projects notes-search-engine family-photo-archive bike-trip-bornholm archive
SUB-references books articles people papers talks courses podcasts
SUB-dreams recurring lucid nightmares
SUB-logs session-logs deploy maintenance incidents
SUB-personal-notes journal finance health career
TAGS homelab networking backup kubernetes python rust sqlite search home-automation zigbee security
TAGS monitoring food recipe cycling travel family health finance tax denmark czechia language books
TAGS people work career meeting decision howto runbook idea review linux dns vpn storage deploy
TAGS incident garden plans archive-2024 q3-goals
HEADS Overview Context Setup Configuration Steps Details Notes Background Problem Solution Decision
HEADS Consequences Alternatives Open_questions Next_steps Commands Troubleshooting Lessons_learned
HEADS Timeline Costs Risks Summary Ideas Plan Status Results Follow-up Checklist References Todo
HEADS Why How_it_works Known_issues Gotchas Examples Rollback Testing Metrics
DAILY Morning Work Afternoon Evening Todo Notes
LOGH Goals What_happened Commands Problems Next_session
LOGKIND session deploy maintenance incident migration debugging
STATUS active active draft done done archived evergreen
DAYS Monday Tuesday Wednesday Thursday Friday Saturday Sunday
SIZES 250 330 420 520 620 730 850 980 1120 1280 1450 1650 1880 2150 2470 2850 3330 3950 4800 5800
DEGREE 0 0 0 0 0 0 1 1 1 1 1 1 2 2 2 2 2 3 3 3 3 4 4 4 5 5 6 7 8 9 12
PHRASE See_{}. More_in_{}. Related:_{}. Details_are_in_{}. Compare_with_{}. This_builds_on_{}.
SEPS ,_ _and_ _but_ ,_because_ _so_ _—_ ,_then_ _while_ ;_
"""
_D: dict[str, list[str]] = {}
for _line in unicodedata.normalize("NFC", _DATA).splitlines():
    _key, _, _rest = _line.partition(" ")
    _D.setdefault(_key, []).extend(w.replace("_", " ") for w in _rest.split())
_D["W"] = _D["REAL"][100:320]
_TOP = ["life", "tech", "projects", "references", "daily", "dreams", "logs", "personal-notes"]
_SIZES, _DEGREE = [int(x) for x in _D["SIZES"]], [int(x) for x in _D["DEGREE"]]
_HEADS, _TAGS, _MONTHS, _PHRASE = _D["HEADS"], _D["TAGS"], _D["M"], _D["PHRASE"]
_CODE = [
    "```bash\nrestic -r /srv/backup snapshots --latest 3\nsystemctl status restic.timer\n```",
    "```python\nfor path in sorted(root.rglob('*.md')):\n    print(path.stat().st_size)\n```",
    "```yaml\nautomation:\n  - alias: washing machine done\n    mode: single\n```",
    "```sql\nSELECT path, bm25(notes_fts) FROM notes_fts WHERE notes_fts MATCH ?;\n```",
    '```json\n{"peer": "laptop", "allowed_ips": ["10.8.0.2/32"], "keepalive": 25}\n```',
]
_BOOLISH = {"yes", "no", "true", "false", "on", "off", "null", "y", "n"}
_SMALL = {"a", "an", "and", "of", "the", "to", "in", "on", "for", "with", "over", "from"}
_END = date(2026, 3, 20).toordinal()
_FOLD = str.maketrans({"ø": "o", "æ": "ae", "å": "aa", "ß": "ss", "Ø": "O", "Æ": "Ae"})
_NON_WORD, _BAD_FILE = re.compile(r"[\W_]+"), re.compile(r"""[:#|\[\]^\\/?*"<>\s]+""")
_SLOT, _TAG = re.compile(r"\{(\w)\}"), re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
_WRITER = """
import os, sys
root, inp = sys.argv[1], sys.stdin.buffer
while head := inp.readline():
    n, m = map(int, head.split())
    with open(os.path.join(root, inp.read(n).decode("utf-8")), "wb") as fh:
        fh.write(inp.read(m))
"""


def _kebab(title: str, fold: bool) -> str:
    s = title.lower()
    if fold:
        s = unicodedata.normalize("NFD", s.translate(_FOLD))
        s = "".join(c for c in s if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", _NON_WORD.sub("-", s).strip("-"))


def _title_case(title: str) -> str:
    words = _BAD_FILE.sub(" ", title).strip(" .").split(" ")
    return " ".join(w if i and w in _SMALL else w[:1].upper() + w[1:] for i, w in enumerate(words))


def _yaml_str(s: str) -> str:
    if s[:1].isalpha() and not any(c in s for c in ':#"\\') and s.lower() not in _BOOLISH:
        return s
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _tags_ok(tags: list[str]) -> list[str]:
    """Kebab-case, not read by YAML as a number or bool, first occurrence only."""
    ok = [t for t in tags if _TAG.fullmatch(t) and not t.isdigit() and t not in _BOOLISH]
    return list(dict.fromkeys(ok))


def _frontmatter(title: str, typ: str, status: str, tags: list[str], updated: int) -> str:
    return (
        f"---\ntitle: {_yaml_str(title)}\ntype: {typ}\nstatus: {status}\n"
        f"tags: [{', '.join(tags)}]\nupdated: {date.fromordinal(updated).isoformat()}\n"
    )


def large_note_count(notes: int) -> int:
    """How many 150–300 KB notes a vault gets: 1 in 2,000, and at least one from 1,000 on."""
    return max(1 if notes >= 1000 else 0, round(notes / 2000))


class _Gen:
    def __init__(self, notes: int, seed: int) -> None:
        self.rng = r = random.Random(seed)
        self.rnd, real = r.random, _D["REAL"]
        vocab, known = real[:270] + _D["DIACRITIC"] + real[270:], {w.lower() for w in real}
        syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
        while len(vocab) < 4000:  # the long tail: pronounceable pseudo-words
            w = "".join(r.choices(syllables, k=1 + int(r.random() * 3)))
            if (w := w + "  nrskt"[int(r.random() * 7)].strip()) not in known:
                known.add(w)
                vocab.append(w)
        # Zipf-Mandelbrot weights 1 / (rank + 3) ** 1.25, in integers so no libm is involved.
        cum = list(accumulate(10**17 // (k * isqrt(isqrt(k * 10**16))) for k in range(4, 4004)))
        names = _D["N"] + _D["P"] + _D["T"]

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
        self.pairs = [(h + ".", h + r.choice(_D["SEPS"])) for h in heads]
        self.tails = [clause(3, 9) + "." if r.random() < 0.7 else "" for _ in range(pool)]
        # Folders: the root, the top-level areas, then a tree at most three levels deep.
        self.notes, n_top = notes, 8 if notes >= 40 else (notes - 1) // 3
        self.folders, self.area = ["", *_TOP[:n_top]], ["", *_TOP[:n_top]]
        self.children: list[list[int]] = [list(range(1, n_top + 1))] + [[] for _ in _TOP[:n_top]]
        want = max(len(self.folders), min(notes // 3, 16 * isqrt(notes * 100) // 100))
        daily_n = min((notes - want) * 6 // 100, 3650) if "daily" in self.folders else 0
        self.daily_dates, d = [], _END
        for _ in range(daily_n):
            self.daily_dates.append(d)
            d -= 1 + (r.random() < 0.25)
        years = sorted({date.fromordinal(o).year for o in self.daily_dates})
        for y in years if daily_n > 366 else []:  # daily/YYYY/YYYY-MM-DD.md
            self._add_folder(self.folders.index("daily"), str(y))
        grow = [i for i in range(1, len(self.folders)) if self.area[i] != "daily"]
        tail = _D["T"] + _D["X"] + _TAGS
        while len(self.folders) < want:
            parent = grow[r.randrange(len(grow))]
            subs = _D["SUB-" + self.area[parent]]
            name = r.choice(subs) if r.random() < 0.5 else _kebab(r.choice(tail), True)
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
            title = f"{_D['DAYS'][d.weekday()]} {d.day} {_MONTHS[d.month - 1]} {d.year}"
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
        updated = _END - int(r.random() * r.random() * 3000)
        if self.area[fi] == "logs":
            kind, d = r.choice(_D["LOGKIND"]), date.fromordinal(_END - 2 - r.randrange(3000))
            tech = r.choice(_D["T"]) + " " if r.random() < 0.4 else ""
            when, on = (d.isoformat(), f"{d.day} ") if r.random() < 0.6 else (d.isoformat()[:7], "")
            base = stem = _kebab(f"{when} {tech}{kind} log", True)
            for n in range(2, 10**9):
                if stem not in self.taken[fi]:
                    break
                stem = f"{base}-{n}"
            title = f"{kind.capitalize()} log {tech}{on}{_MONTHS[d.month - 1]} {d.year}"
            return self._note(fi, stem, title, "log", d.toordinal() + r.randrange(3))
        for attempt in range(1, 10**9):
            typ, _, tpl = r.choice(_D[self.area[fi]]).partition("|")
            title = _SLOT.sub(lambda m: r.choice(_D[m.group(1)]), tpl)
            title = title[:1].upper() + title[1:]
            if r.random() < 0.45:  # "Title Case With Spaces.md", else kebab-case.md
                stem = _title_case(title)
                title = stem if r.random() < 0.5 and ":" not in title else title
            else:
                stem = _kebab(title, r.random() < 0.5)
            if attempt > 5:
                stem += f" {attempt}" if " " in stem else f"-{attempt}"
            if stem.lower() not in self.taken[fi]:
                return self._note(fi, stem, title, typ, updated)

    def _note(self, fi: int, stem: str, title: str, typ: str, updated: int) -> None:
        r = self.rng
        self.taken[fi].add(stem.lower())
        self.members[fi].append(len(self.meta))
        self.meta.append((fi, stem, title, typ, updated))
        u = r.randrange(len(_SIZES) - 1) if r.random() < 0.97 else -1  # log-normal-ish
        self.sizes.append(r.randint(_SIZES[u], _SIZES[u + 1]) if u >= 0 else r.randint(6000, 12000))

    def _heads(self, i: int) -> tuple[list[str], int]:
        fi, _, _, typ, _ = self.meta[i]
        if typ == "journal" and self.area[fi] == "daily":
            return _D["DAILY"], 0
        return (_D["LOGH"], 0) if typ == "log" else (_HEADS, i * 7 % len(_HEADS))

    def _link(self, src: int) -> str:
        rnd, x, urn = self.rnd, self.rnd(), self.urn
        while x < 0.01:  # broken: a plausible name no note has
            gone = "-".join(_D[k][int(rnd() * len(_D[k]))] for k in "WJX").replace(" ", "-")
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
        if x < 0.94 and (self.sizes[t] >= 700 or heads is not _HEADS):
            return f"[[{stem}#{heads[off]}]]"
        return f"[[{self.folders[fi]}/{stem}]]" if x < 0.98 else f"![[{stem}]]"

    def _sentences(self, n: int) -> list[str]:
        heads, tails = self.rng.choices(self.pairs, k=n), self.rng.choices(self.tails, k=n)
        return [h[1] + t if t else h[0] for h, t in zip(heads, tails, strict=True)]

    def render(self, i: int) -> str:
        (fi, _, title, typ, updated), budget, rnd = self.meta[i], self.sizes[i], self.rnd
        status = {"log": "closed", "journal": "done"}.get(typ) or _D["STATUS"][int(rnd() * 7)]
        tags = [self.area[fi].partition("-")[0], self.folders[fi].rpartition("/")[2]]
        tags += [_TAGS[int(rnd() * len(_TAGS))] for _ in range(6)]
        out = [_frontmatter(title, typ, status, _tags_ok(tags)[: 2 + int(rnd() * 4)], updated)]
        if rnd() < 0.4:
            out.append(f"created: {date.fromordinal(updated - int(rnd() * 1500))}\n")
        alias = " ".join(_kebab(title, True).split("-")[:2]) if rnd() < 0.15 else ""
        if alias[:1].isalpha() and alias not in _BOOLISH and typ not in ("journal", "log"):
            out.append(f"aliases: [{alias}]\n")
        heads, off = self._heads(i)
        sents, n = self._sentences(budget // 60 + 4), 1 + int(rnd() * 4)
        parts = [f"# {title}"] if heads is not _HEADS or rnd() < 0.7 else []
        paras, k, since = [len(parts)], 0, 0
        parts.append(" ".join(sents[:n]))
        cur, s = len(parts[-1]), n
        if budget >= 700 or heads is not _HEADS:
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
                block, n = _CODE[int(rnd() * len(_CODE))], 0
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
        n = 60 + int(rnd() * 120) if rnd() < 0.004 else _DEGREE[int(rnd() * len(_DEGREE))]
        links, related = [self._link(i) for _ in range(n)], []
        self.n_links += n
        if n > 10 or (n >= 2 and rnd() < 0.25):  # hubs keep a few inline and list the rest
            cut = 3 if n > 10 else n - 1 - int(rnd() * n)
            links, related = links[:cut], links[cut:]
        for ln in links:
            phrase, j = _PHRASE[int(rnd() * len(_PHRASE))], paras[int(rnd() * len(paras))]
            parts[j] += "\n\n" + ln if ln[0] == "!" else " " + phrase.format(ln)
        if related:
            parts.append("Related:\n" + "\n".join("- " + ln.lstrip("!") for ln in related))
        return "".join(out) + "---\n" + "\n\n".join(parts) + "\n"

    def render_index(self, fi: int) -> str:
        leaf = self.folders[fi].rpartition("/")[2] or "vault"
        name = leaf.replace("-", " ").capitalize()
        tags = _tags_ok(["index", self.area[fi].partition("-")[0] or "vault", leaf])
        updated = max([self.meta[i][4] for i in self.members[fi]], default=_END)
        stems = sorted((self.meta[i][1] for i in self.members[fi]), key=str.lower)
        lines = [f"- [[{s}]]" for s in stems[:INDEX_CAP]]
        self.n_links += len(lines)
        if len(stems) > INDEX_CAP:
            lines.append(f"- … and {len(stems) - INDEX_CAP} more notes in this folder.")
        parts = [f"# {name}", " ".join(self._sentences(2))] + (["\n".join(lines)] if lines else [])
        if subs := [self.folders[c].rpartition("/")[2] for c in self.children[fi]]:
            parts.append("## Folders\n\n" + "\n".join(f"- `{s}/`" for s in subs))
        head = _frontmatter(f"{name} Index", "index", "active", tags, updated)
        return head + "---\n" + "\n\n".join(parts) + "\n"

    def rel(self, i: int) -> str:
        fi, stem = self.meta[i][:2]
        return f"{self.folders[fi]}/{stem}.md" if self.folders[fi] else f"{stem}.md"

    def files(self) -> Iterator[tuple[str, str]]:
        for i in range(len(self.meta)):
            yield self.rel(i), self.render(i)
        for fi, folder in enumerate(self.folders):
            yield f"{folder}/_INDEX.md".lstrip("/"), self.render_index(fi)


def _finish(proc: subprocess.Popen[bytes]) -> str:
    """Close a writer's input and wait: its error output if it failed, else ``""``."""
    assert proc.stdin is not None and proc.stderr is not None
    with contextlib.suppress(OSError):
        proc.stdin.close()
    with proc.stderr:  # closed here, not left to the garbage collector (a ResourceWarning)
        err = proc.stderr.read().decode("utf-8", errors="replace").strip()
    return (err or f"exit status {proc.returncode}")[-2000:] if proc.wait() else ""


def generate_vault(
    dest: Path,
    notes: int,
    seed: int = 20261130,
    progress: Callable[[int, int], None] | None = None,
) -> GeneratedVault:
    """Write a vault of exactly ``notes`` notes (``_INDEX.md`` files included) into ``dest``.

    ``dest`` is created if missing and must be empty otherwise (``FileExistsError``).
    ``progress(done, total)`` is called at most 100 times, the last with ``done == total``.
    """
    if notes < 10:
        raise ValueError("notes must be at least 10")
    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise FileExistsError(f"{dest} exists and is not empty")
    g = _Gen(notes, seed)
    g.plan()
    for f in g.folders:
        (dest / f).mkdir(parents=True, exist_ok=True)
    cmd, pipe = [sys.executable, "-I", "-c", _WRITER, str(dest)], subprocess.PIPE
    n_procs = WRITERS if notes >= SPAWN_WRITER_FROM and sys.executable else 0
    procs = [
        subprocess.Popen(cmd, stdin=pipe, stderr=pipe, bufsize=1 << 20) for _ in range(n_procs)
    ]
    total_bytes = done = pct = 0
    failure: OSError | None = None
    try:
        for rel, text in g.files():
            data = text.encode("utf-8")
            if procs:
                name, out = rel.encode("utf-8"), procs[done % len(procs)].stdin
                assert out is not None
                out.write(b"%d %d\n%s%s" % (len(name), len(data), name, data))
            else:
                with open(dest / rel, "wb") as fh:
                    fh.write(data)
            total_bytes, done = total_bytes + len(data), done + 1
            if progress is not None and done < notes and done * 100 // notes > pct:
                pct = done * 100 // notes
                progress(done, notes)
    except OSError as exc:  # a writer that died closes its pipe; its own error says why
        failure = exc
    finally:
        errors = [e for e in (_finish(p) for p in procs) if e] + ([str(failure)] if failure else [])
    if errors:
        raise OSError(f"writing the vault failed: {errors[0]}") from failure
    if progress is not None:
        progress(done, notes)
    large = [g.rel(i) for i in g.large]
    return GeneratedVault(dest, done, total_bytes, len(g.folders), g.n_links, large, seed)
