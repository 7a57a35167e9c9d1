"""The fuzzing harness (benchmarks/fuzz.py): it is deterministic, it can fail (planted
crashes, hangs, deaths and round-trip mismatches are reported as such), and a small
budget of mutated IR texts and archives ends in no crash and no hang (issue 17)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import fuzz  # noqa: E402

VALID_IR = b"""func.func @f(%x: !tx.tensor<[3], f32>) -> !tx.tensor<[3], f32> {
  %r = core.relu(%x) : !tx.tensor<[3], f32>
  func.return %r : !tx.tensor<[3], f32>
}
"""


def _planted(data: bytes, stage) -> None:  # noqa: ANN001 - a fake entry point with known bugs
    stage("planted")
    if b"boom" in data:
        raise TypeError("planted crash")
    if b"sleep" in data:
        time.sleep(60)
    if b"die" in data:
        os._exit(9)
    if b"mem" in data:
        raise MemoryError
    if b"twice" in data:
        raise fuzz.RoundTripMismatch("planted mismatch")
    if b"bad" in data:
        raise ValueError("the documented error")


PLANTED = fuzz.Target("planted", _planted, lambda err, stage: type(err) is ValueError)


@pytest.fixture(scope="module")
def pool():  # noqa: ANN201
    with fuzz.Pool({"planted": PLANTED, "ir": fuzz.IR_TARGET}, workers=2, timeout=1.0) as workers:
        yield workers


def test_every_mutator_is_deterministic_for_a_seed() -> None:
    text = VALID_IR.decode()
    for name, mutate in fuzz.IR_MUTATORS.items():
        first = [mutate(fuzz.Mutation(f"7:{i}"), text) for i in range(5)]
        assert first == [mutate(fuzz.Mutation(f"7:{i}"), text) for i in range(5)], name
    corpus = [("valid", text)]
    inputs = [item.data for item in fuzz.generate(3, "ir", 40, corpus, fuzz.IR_MUTATORS)]
    assert inputs == [item.data for item in fuzz.generate(3, "ir", 40, corpus, fuzz.IR_MUTATORS)]
    assert inputs != [item.data for item in fuzz.generate(4, "ir", 40, corpus, fuzz.IR_MUTATORS)]


def test_archive_mutators_are_deterministic_for_a_seed() -> None:
    programs = fuzz.exported_programs(["ConvBN"])[:1]
    corpus = fuzz.program_archives(programs)
    for name, mutate in fuzz.ARCHIVE_MUTATORS.items():
        if name == "member.deflate_bomb":
            continue  # (deterministic too, but builds up to 1 GiB of deflate input)
        runs = [[mutate(fuzz.Mutation(f"5:{i}"), corpus[0][1]) for i in range(3)] for _ in range(2)]
        assert runs[0] == runs[1], name


def test_planted_crash_hang_death_memory_and_mismatch_are_findings(pool: fuzz.Pool) -> None:
    outcomes = {data: pool.run("planted", data) for data in
                (b"ok", b"bad", b"boom", b"sleep", b"die", b"mem", b"twice")}
    assert outcomes[b"ok"].outcome == fuzz.ACCEPTED
    assert outcomes[b"bad"] == fuzz.Result(fuzz.CLEAN, "planted: ValueError")
    assert outcomes[b"boom"].outcome == fuzz.CRASH
    assert outcomes[b"boom"].key.startswith("planted: TypeError at ")
    assert outcomes[b"sleep"] == fuzz.Result(fuzz.HANG, "hang at test_fuzz.py:_planted", "no result within 1.0 s")
    assert outcomes[b"die"].outcome == fuzz.CRASH and "worker died" in outcomes[b"die"].key
    assert outcomes[b"mem"].outcome == fuzz.MEMORY
    assert outcomes[b"twice"].outcome == fuzz.MISMATCH
    assert pool.run("planted", b"ok").outcome == fuzz.ACCEPTED  # restarted workers still serve


def test_campaign_counts_and_minimizes_findings(pool: fuzz.Pool) -> None:
    items = [fuzz.Input("planted", "c", "m", data) for data in
             (b"ok", b"x boom y\nz", b"bad", b"boom" + b"!" * 50, b"ok")]
    report = fuzz.Report()
    fuzz.campaign(pool, items, report)
    assert report.count("planted", fuzz.CRASH) == 2
    assert report.count("planted", fuzz.ACCEPTED) == 2
    assert report.count("planted", fuzz.CLEAN) == 1
    (finding,) = report.findings.values()
    assert finding.count == 2 and finding.data == b"x boom y\nz"  # the smaller witness
    repro = fuzz.minimize(pool, "planted", finding.data, fuzz.Result(fuzz.CRASH, finding.key), budget=20)
    assert repro == b"boom"


def test_the_ir_entry_point_accepts_valid_text_and_refuses_broken_text_cleanly(pool: fuzz.Pool) -> None:
    assert pool.run("ir", VALID_IR).outcome == fuzz.ACCEPTED
    assert pool.run("ir", VALID_IR[:40]) == fuzz.Result(fuzz.CLEAN, "parse: ParseError")
    assert pool.run("ir", b"func.func @f\xff() {}") == fuzz.Result(fuzz.CLEAN, "parse: ParseError")


def test_a_small_budget_finds_no_crash_and_no_hang() -> None:
    report = fuzz.run(seed=0, ir=300, archives=60, workers=2, timeout=2.0)
    found = {key: finding.count for key, finding in report.findings.items()}
    assert not found, fuzz.format_report(report)
