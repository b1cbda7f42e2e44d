#!/usr/bin/env python3
"""Builds tests/fixtures/recall-squad/ from SQuAD v1.1's development set.

The source is the copy of SQuAD v1.1 dev (`squaddev_v1.1.json`, 48 Wikipedia articles,
2,067 paragraphs, 10,570 questions) that the `bigbench` 1.0.0 source package on PyPI ships
in `bigbench/benchmark_tasks/squad_shifts/`. Get it with the ordinary client:

    pip download --no-deps bigbench==1.0.0 -d /tmp/bigbench   # a 358 MB source archive
    python3 scripts/make-squad-recall-set.py /tmp/bigbench/bigbench-1.0.0.tar.gz

Every paragraph becomes one memory: `text` is the paragraph (the passage a QueryAgent may
read), `summary` a deterministic stand-in for what the IngestAgent would write (SQuAD has no
summaries): the article's title, a colon, and the paragraph's first sentence. A seeded sample
of the questions is kept, each with its paragraph as evidence, its answers (the distinct
answer spans of its annotators) and a category from its question word. Standard library only;
running it twice gives byte-identical files.
"""

import argparse
import json
import random
import re
import sys
import tarfile
from pathlib import Path

MEMBER = "bigbench-1.0.0/bigbench/benchmark_tasks/squad_shifts/squaddev_v1.1.json"
OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "recall-squad"
SEED = "20261202"
QUESTIONS = 1000
# SQuAD v1.1 was published in June 2016 (arXiv:1606.05250); every memory gets that day, and the
# questions are asked later, so no date narrows the search.
DATE = "2016-06-16"
ASKED_AT = "2026-12-01T10:00:00Z"

# A sentence ends at . ! or ? followed by a space and a capital letter, a digit or a quote,
# unless the word before is a common abbreviation or an initial.
SENTENCE_END = re.compile(r"(?<=[.!?])[\"”')\]]?\s+(?=[A-Z0-9\"“(])")
ABBREVIATIONS = {"mr.", "mrs.", "ms.", "dr.", "st.", "jr.", "sr.", "no.", "vs.", "c.", "ca.", "e.g.", "i.e.",
                 "u.s.", "u.k.", "st.", "mt.", "ft.", "gen.", "col.", "lt.", "capt.", "gov.", "rev.", "prof.",
                 "inc.", "co.", "ltd.", "jan.", "feb.", "mar.", "apr.", "jun.", "jul.", "aug.", "sep.",
                 "sept.", "oct.", "nov.", "dec.", "al.", "approx.", "fig."}


def first_sentence(text):
    """The paragraph's first sentence (the whole paragraph when it has one)."""
    for match in SENTENCE_END.finditer(text):
        before = text[:match.start()].rsplit(None, 1)[-1].lower()
        if before in ABBREVIATIONS or re.fullmatch(r"[a-z]\.", before):
            continue
        return text[:match.start()].strip()
    return text.strip()


def title_of(raw):
    """`Fresno,_California` → `Fresno, California`."""
    return raw.replace("_", " ")


def category(question):
    """The question's wh-word: how many/how much, how, what, which, who, when, where, why, other."""
    words = re.findall(r"[a-z]+", question.lower())
    for at, word in enumerate(words):
        following = words[at + 1] if at + 1 < len(words) else ""
        if word == "how":
            return "how-many" if following in ("many", "much") else "how"
        if word in ("whom", "whose"):
            return "who"
        if word in ("what", "which", "who", "when", "where", "why"):
            return word
    return "other"


def distinct(answers):
    seen, out = set(), []
    for answer in answers:
        text = answer["text"].strip()
        if text and text not in seen:
            seen.add(text)
            out.append(text)
    return out


def load(source):
    if source.endswith(".json"):
        return json.loads(Path(source).read_text(encoding="utf-8"))
    with tarfile.open(source) as archive:
        return json.load(archive.extractfile(MEMBER))


def build(squad):
    memories, questions = [], []
    for article in squad["data"]:
        title = title_of(article["title"])
        for number, paragraph in enumerate(article["paragraphs"]):
            text = " ".join(paragraph["context"].split())
            memory_id = f"squad/{article['title']}/{number}"
            memories.append({
                "id": memory_id,
                "summary": f"{title}: {first_sentence(text)}",
                "text": text,
                "date": DATE,
                "source": f"SQuAD/{title}.md",
                "entities": [title],
            })
            for qa in paragraph["qas"]:
                questions.append({
                    "id": qa["id"],
                    "question": " ".join(qa["question"].split()),
                    "asked_at": ASKED_AT,
                    "evidence": [memory_id],
                    "answer": distinct(qa["answers"]),
                    "category": category(qa["question"]),
                })
    chosen = sorted(random.Random(SEED).sample(range(len(questions)), QUESTIONS))
    return memories, [questions[at] for at in chosen]


def write(path, records):
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="bigbench-1.0.0.tar.gz, or squaddev_v1.1.json taken out of it")
    args = parser.parse_args()
    squad = load(args.source)
    if squad.get("version") != "1.1":
        sys.exit(f"expected SQuAD version 1.1, found {squad.get('version')!r}")
    memories, questions = build(squad)
    OUT.mkdir(parents=True, exist_ok=True)
    write(OUT / "memories.jsonl", memories)
    write(OUT / "questions.jsonl", questions)
    counts = {}
    for question in questions:
        counts[question["category"]] = counts.get(question["category"], 0) + 1
    print(f"{len(memories)} memories, {len(questions)} questions: {dict(sorted(counts.items()))}")
    for name in ("memories.jsonl", "questions.jsonl"):
        print(f"{name}: {(OUT / name).stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
