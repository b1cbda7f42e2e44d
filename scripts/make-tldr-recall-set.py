#!/usr/bin/env python3
"""Build the tldr-pages recall benchmark memories (tests/fixtures/recall-tldr/).

Usage:
    python3 scripts/make-tldr-recall-set.py [--archive PATH] [--out DIR]
    python3 scripts/make-tldr-recall-set.py --check [--out DIR]

The first form unpacks the tldr-pages archive into a temporary directory
(the archive itself is never modified), selects pages deterministically and
writes DIR/memories.jsonl.  The --check form validates memories.jsonl and
questions.jsonl in DIR (every line parses, fields are as expected, ids are
unique, every evidence id exists) and prints counts.

Selection (seed SEED, all file lists sorted before shuffling):
  * English (pages/): EN_TARGET pages, a stratified sample across platforms:
    each platform gets a share proportional to its page count (largest
    remainder rounding), taken from a seeded shuffle of that platform's pages.
  * zh, ja, th, de: LANG_TARGET pages each.  Pages are taken in tiers, each
    tier shuffled with the seed: (1) content pages in common, (2) content
    pages on other platforms, (3) alias pages ("This command is an alias of
    ...", whose only example is `tldr <other>`) in common, (4) alias pages on
    other platforms.  Thai and Japanese have few content pages, so their
    selections contain all of them plus alias pages.

Standard library only.
"""

import argparse
import json
import os
import random
import re
import sys
import tarfile
import tempfile

SEED = 20260823
EN_TARGET = 1350
LANG_TARGET = 300
DATE = "2026-08-23"
MAX_TEXT = 1500  # text must be strictly shorter than this
SEP = " \u00b7 "

LANGS = [  # (lang code, pages folder)
    ("en", "pages"),
    ("zh", "pages.zh"),
    ("ja", "pages.ja"),
    ("th", "pages.th"),
    ("de", "pages.de"),
]

# "More information: <url>" lines in each language.
MORE_INFO = re.compile(
    r"^(More information|更多信息|詳細情報|ข้อมูลเพิ่มเติม|Weitere Informationen)\s*[:：]"
)
# tldr "mnemonic" brackets inside words of descriptions: "[c]reate", "g[z]ipped".
MNEMONIC = re.compile(r"\[([^\[\]\s`]{1,12})\]")
PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_ARCHIVE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "vaults", "tldr-pages.tar.gz")
DEFAULT_OUT = os.path.join(ROOT, "tests", "fixtures", "recall-tldr")

CATEGORIES = {
    "named": 40, "task": 70, "two-things": 20, "word-forms": 15,
    "de": 20, "zh": 20, "ja": 20, "th": 15,
}


def clean_prose(s):
    """Description text: drop mnemonic brackets outside inline code, drop backticks."""
    parts = s.split("`")
    out = []
    for i, p in enumerate(parts):
        if i % 2 == 0:  # outside inline code
            p = MNEMONIC.sub(r"\1", p)
        out.append(p)
    return "".join(out).strip()


def clean_command(s):
    s = s.strip()
    if s.startswith("`") and s.endswith("`") and len(s) >= 2:
        s = s[1:-1]
    s = PLACEHOLDER.sub(r"\1", s)
    return s.replace("`", "").strip()


def parse_page(path):
    """Return (title, [description lines], [(example description, command)])."""
    with open(path, encoding="utf-8") as f:
        lines = [ln.rstrip("\n") for ln in f]
    title, descs, examples, pending = None, [], [], None
    for ln in lines:
        s = ln.strip()
        if not s or s.startswith("<!--"):
            continue
        if s.startswith("# ") and title is None:
            title = s[2:].strip()
        elif s.startswith(">"):
            d = s[1:].strip()
            if not d or MORE_INFO.match(d):
                continue
            descs.append(clean_prose(d))
        elif s.startswith("- "):
            pending = clean_prose(s[2:])
        elif s.startswith("`"):
            examples.append((pending or "", clean_command(s)))
            pending = None
    return title, descs, examples


def is_alias(examples):
    return len(examples) == 1 and examples[0][1].startswith("tldr ")


def flatten(title, descs, examples):
    parts = [title] + descs
    text = SEP.join(parts)
    for desc, cmd in examples:
        piece = (desc + " " + cmd).strip()
        cand = text + SEP + piece
        if len(cand) >= MAX_TEXT:
            break
        text = cand
    if len(text) >= MAX_TEXT:
        text = text[: MAX_TEXT - 1]
    return text


def list_pages(base, folder):
    """{platform: [file names]} with sorted lists."""
    out = {}
    top = os.path.join(base, folder)
    for plat in sorted(os.listdir(top)):
        pdir = os.path.join(top, plat)
        if not os.path.isdir(pdir):
            continue
        out[plat] = sorted(f for f in os.listdir(pdir) if f.endswith(".md"))
    return out


def sample_en(pages, rng, target):
    total = sum(len(v) for v in pages.values())
    plats = sorted(pages)
    quotas = {p: target * len(pages[p]) / total for p in plats}
    floor = {p: int(quotas[p]) for p in plats}
    left = target - sum(floor.values())
    order = sorted(plats, key=lambda p: (-(quotas[p] - floor[p]), p))
    for p in order[:left]:
        floor[p] += 1
    chosen = []
    for p in plats:
        files = list(pages[p])
        rng.shuffle(files)
        chosen += [(p, f) for f in sorted(files[: floor[p]])]
    return chosen


def sample_lang(base, folder, pages, rng, target):
    tiers = [[], [], [], []]
    for p in sorted(pages):
        for f in pages[p]:
            _, _, ex = parse_page(os.path.join(base, folder, p, f))
            tier = (2 if is_alias(ex) else 0) + (0 if p == "common" else 1)
            tiers[tier].append((p, f))
    chosen = []
    for t in tiers:
        t = list(t)
        rng.shuffle(t)
        chosen += t[: target - len(chosen)]
    return sorted(chosen)


def find_base(tmp):
    for dirpath, dirnames, _ in os.walk(tmp):
        if "pages" in dirnames:
            return dirpath
    raise SystemExit("no pages/ folder in archive")


def build(archive, out):
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(archive, "r:gz") as tf:
            try:
                tf.extractall(tmp, filter="data")
            except TypeError:  # Python without extraction filters
                tf.extractall(tmp)
        base = find_base(tmp)
        records = []
        for lang, folder in LANGS:
            pages = list_pages(base, folder)
            rng = random.Random("%d-%s" % (SEED, lang))
            if lang == "en":
                chosen = sample_en(pages, rng, EN_TARGET)
            else:
                chosen = sample_lang(base, folder, pages, rng, LANG_TARGET)
            for plat, fname in chosen:
                title, descs, ex = parse_page(os.path.join(base, folder, plat, fname))
                stem = fname[:-3]
                records.append({
                    "id": "%s/%s/%s" % (lang, plat, stem),
                    "text": flatten(title or stem, descs, ex),
                    "date": DATE,
                    "source": "%s/%s/%s" % (folder, plat, fname),
                    "entities": [title or stem],
                    "topics": [plat],
                })
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "memories.jsonl")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")
    print("wrote %d memories to %s (%d bytes)" % (len(records), path, os.path.getsize(path)))


def check(out):
    ok = True

    def fail(msg):
        nonlocal ok
        ok = False
        print("ERROR:", msg)

    def records(path):
        """(line number, parsed object) for each line that parses; the others fail."""
        name = os.path.basename(path)
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                try:
                    yield n, json.loads(line)
                except ValueError as e:
                    fail("%s:%d: %s" % (name, n, e))

    mem_ids, per_lang = set(), {}
    mpath = os.path.join(out, "memories.jsonl")
    for n, r in records(mpath):
        if set(r) != {"id", "text", "date", "source", "entities", "topics"}:
            fail("memories.jsonl:%d: fields %s" % (n, sorted(r)))
        if r.get("id") in mem_ids:
            fail("memories.jsonl:%d: duplicate id %s" % (n, r.get("id")))
        mem_ids.add(r.get("id"))
        if len(r.get("text", "")) >= MAX_TEXT:
            fail("memories.jsonl:%d: text too long" % n)
        lang = r.get("id", "").split("/")[0]
        per_lang[lang] = per_lang.get(lang, 0) + 1
    print("memories: %d (%s), %d bytes" % (
        len(mem_ids), ", ".join("%s=%d" % kv for kv in sorted(per_lang.items())),
        os.path.getsize(mpath)))

    qpath = os.path.join(out, "questions.jsonl")
    if not os.path.exists(qpath):
        print("no questions.jsonl yet")
        return ok
    q_ids, cats, texts = set(), {}, set()
    for n, q in records(qpath):
        if set(q) != {"id", "question", "asked_at", "evidence", "category"}:
            fail("questions.jsonl:%d: fields %s" % (n, sorted(q)))
        if q.get("id") in q_ids:
            fail("questions.jsonl:%d: duplicate id %s" % (n, q.get("id")))
        q_ids.add(q.get("id"))
        if q.get("question") in texts:
            fail("questions.jsonl:%d: duplicate question" % n)
        texts.add(q.get("question"))
        ev = q.get("evidence") or []
        if not ev:
            fail("questions.jsonl:%d: no evidence" % n)
        for e in ev:
            if e not in mem_ids:
                fail("questions.jsonl:%d: evidence %s not in memories" % (n, e))
        c = q.get("category")
        if c not in CATEGORIES:
            fail("questions.jsonl:%d: unknown category %s" % (n, c))
        cats[c] = cats.get(c, 0) + 1
        if c in ("de", "zh", "ja", "th"):
            for e in ev:
                if not e.startswith(c + "/"):
                    fail("questions.jsonl:%d: %s question with evidence %s" % (n, c, e))
        elif c is not None:
            for e in ev:
                if not e.startswith("en/"):
                    fail("questions.jsonl:%d: English question with evidence %s" % (n, e))
        if c == "two-things" and len(ev) < 2:
            fail("questions.jsonl:%d: two-things with %d evidence" % (n, len(ev)))
    print("questions: %d (%s)" % (len(q_ids), ", ".join(
        "%s=%d" % (c, cats.get(c, 0)) for c in CATEGORIES)))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--archive", default=DEFAULT_ARCHIVE)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true", help="validate the set and print counts")
    a = ap.parse_args()
    if a.check:
        sys.exit(0 if check(a.out) else 1)
    build(a.archive, a.out)


if __name__ == "__main__":
    main()
