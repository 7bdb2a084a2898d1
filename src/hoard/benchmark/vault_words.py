"""The word tables of the benchmark vault generator (data, not logic: the size rule does
not apply to them) and the rules that turn words into file names, titles and front matter.

Everything here is fixed at import: the generator draws from these lists with its own seeded
``random.Random``, so the same seed gives byte-identical vaults.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date

# One list per line key ("_" is a space). Top-level folder keys hold "type|title template"
# entries, where {K} takes a random entry of list K.
WORD_TABLES = """\
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


def _parse_tables(text: str) -> dict[str, list[str]]:
    """One list per key; ``_`` in an entry is a space."""
    words: dict[str, list[str]] = {}
    for line in unicodedata.normalize("NFC", text).splitlines():
        key, _, rest = line.partition(" ")
        words.setdefault(key, []).extend(w.replace("_", " ") for w in rest.split())
    return words


WORDS = _parse_tables(WORD_TABLES)
WORDS["W"] = WORDS["REAL"][100:320]
TOP_FOLDERS = [
    "life",
    "tech",
    "projects",
    "references",
    "daily",
    "dreams",
    "logs",
    "personal-notes",
]
NOTE_SIZES, LINK_DEGREES = [int(x) for x in WORDS["SIZES"]], [int(x) for x in WORDS["DEGREE"]]
HEADINGS, TAGS, MONTHS, LINK_PHRASES = WORDS["HEADS"], WORDS["TAGS"], WORDS["M"], WORDS["PHRASE"]
CODE_BLOCKS = [
    "```bash\nrestic -r /srv/backup snapshots --latest 3\nsystemctl status restic.timer\n```",
    "```python\nfor path in sorted(root.rglob('*.md')):\n    print(path.stat().st_size)\n```",
    "```yaml\nautomation:\n  - alias: washing machine done\n    mode: single\n```",
    "```sql\nSELECT path, bm25(notes_fts) FROM notes_fts WHERE notes_fts MATCH ?;\n```",
    '```json\n{"peer": "laptop", "allowed_ips": ["10.8.0.2/32"], "keepalive": 25}\n```',
]
BOOLISH = {"yes", "no", "true", "false", "on", "off", "null", "y", "n"}
SMALL_WORDS = {"a", "an", "and", "of", "the", "to", "in", "on", "for", "with", "over", "from"}
LAST_DAY = date(2026, 3, 20).toordinal()
ASCII_FOLD = str.maketrans({"ø": "o", "æ": "ae", "å": "aa", "ß": "ss", "Ø": "O", "Æ": "Ae"})
NON_WORD, BAD_FILE_CHARS = re.compile(r"[\W_]+"), re.compile(r"""[:#|\[\]^\\/?*"<>\s]+""")
TEMPLATE_SLOT, TAG_SHAPE = re.compile(r"\{(\w)\}"), re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def kebab(title: str, fold: bool) -> str:
    s = title.lower()
    if fold:
        s = unicodedata.normalize("NFD", s.translate(ASCII_FOLD))
        s = "".join(c for c in s if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", NON_WORD.sub("-", s).strip("-"))


def title_case(title: str) -> str:
    words = BAD_FILE_CHARS.sub(" ", title).strip(" .").split(" ")
    return " ".join(
        w if i and w in SMALL_WORDS else w[:1].upper() + w[1:] for i, w in enumerate(words)
    )


def yaml_str(s: str) -> str:
    if s[:1].isalpha() and not any(c in s for c in ':#"\\') and s.lower() not in BOOLISH:
        return s
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def tags_ok(tags: list[str]) -> list[str]:
    """Kebab-case, not read by YAML as a number or bool, first occurrence only."""
    ok = [t for t in tags if TAG_SHAPE.fullmatch(t) and not t.isdigit() and t not in BOOLISH]
    return list(dict.fromkeys(ok))


def frontmatter(title: str, typ: str, status: str, tags: list[str], updated: int) -> str:
    return (
        f"---\ntitle: {yaml_str(title)}\ntype: {typ}\nstatus: {status}\n"
        f"tags: [{', '.join(tags)}]\nupdated: {date.fromordinal(updated).isoformat()}\n"
    )
