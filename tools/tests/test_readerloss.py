"""Tests for tools/mmlab/readerloss.py: the readers' loss per episode of reclaim records,
with its interval, the baseline and A/A checks and the receivers' interrupts, laid out for
table.txt, the page and results.json; records without it give no row."""
import unittest

from mmlab.readerloss import (reader_loss_results, render_reader_loss_html,
                              render_reader_loss_text)
from mmlab.records import bench_from_json


def record(variant, loss=None, **extra):
    obj = {"bench": "reclaim", "variant": variant, "cpus": 2,
           "params": {"pages": 512, "flush": "full"}, "metric": "reader_elapsed_us",
           "unit": "us", "better": "lower", "runs": 2, "median": 10.0, "min": 10.0,
           "max": 10.0, "mean": 10.0, "stddev": 0.0, "counters": {}, **extra}
    if loss is not None:
        obj.update(reader_episodes=40, reader_loss_pct=loss[0], reader_loss_pct_lo=loss[1],
                   reader_loss_pct_hi=loss[2], reader_null_cycles_per_kread=227322,
                   reader_cycles_per_kread=39757402, receiver_irqs_per_run=800,
                   receiver_irqs_per_run_lo=800, receiver_irqs_per_run_hi=800,
                   receiver_irqs_per_sec=50033, receiver_irqs_per_sec_lo=47576,
                   receiver_irqs_per_sec_hi=51808, reader_baseline_same=True)
    rec, problems = bench_from_json(obj, 1)
    assert not problems, problems
    return rec


class TestReaderLoss(unittest.TestCase):
    def test_a_row_per_record_that_reports_it(self):
        recs = [record("naive", (99.422, 99.407, 99.453)),
                record("aa", (99.419, 99.397, 99.438), reader_loss_aa_agrees=False),
                record("batched")]
        rows = reader_loss_results(recs)
        self.assertEqual([r["design"] for r in rows], ["naive", "aa"])
        self.assertEqual(rows[0]["loss_pct"], 99.422)
        self.assertEqual(rows[0]["loss_pct_ci"], [99.407, 99.453])
        self.assertEqual((rows[0]["receiver_irqs_per_run"], rows[0]["receiver_irqs_per_sec"]),
                         (800, 50033))
        self.assertIsNone(rows[0]["aa_agrees"])
        self.assertIs(rows[1]["aa_agrees"], False)

    def test_table_shows_the_interval_and_a_failed_aa(self):
        rows = reader_loss_results([record("naive", (99.422, 99.407, 99.453)),
                                    record("aa", (95.0, 94.0, 96.0),
                                           reader_loss_aa_agrees=False)])
        text = "\n".join(render_reader_loss_text(rows))
        self.assertIn("Readers' loss per episode", text)
        line = next(t for t in text.splitlines() if t.startswith("reclaim") and " naive " in t)
        self.assertIn("99.41..99.45", line)
        aa = next(t for t in text.splitlines() if t.startswith("reclaim") and " aa " in t)
        self.assertIn("NO", aa)
        page = "".join(render_reader_loss_html(rows, lambda h, r, a: str(r), lambda s: s))
        self.assertIn("id=\"reader-loss\"", page)

    def test_nothing_without_it(self):
        self.assertEqual(render_reader_loss_text(reader_loss_results([record("naive")])), [])


def tlb_record(variant, episodes, base=58000, **extra):
    n = len(episodes)
    srt = sorted(episodes)
    obj = {"bench": "tlb", "variant": variant, "cpus": 2,
           "params": {"pages": 8, "remote": "busy"}, "metric": "cycles_per_page",
           "unit": "cycles", "better": "lower", "runs": n, "median": 10.0, "min": 10.0,
           "max": 10.0, "mean": 10.0, "stddev": 0.0, "counters": {},
           "samples": [10.0] * n, "seq": list(range(n)),
           "remote_reads_per_ms_baseline": base, "remote_read_loss_episodes_pct": episodes,
           "remote_read_loss_episode_pct": srt[n // 2], "remote_read_loss_episode_pct_lo": srt[0],
           "remote_read_loss_episode_pct_hi": srt[-1], **extra}
    rec, problems = bench_from_json(obj, 1)
    assert not problems, problems
    return rec


class TestTlbReaderLoss(unittest.TestCase):
    # A drift every variant of a round shares: pairing by round takes it out.
    DRIFT = [0.0, 8.0, -6.0, 12.0, -10.0, 4.0, 2.0, -4.0, 7.0, -9.0]

    def test_loss_against_the_null_of_the_same_round(self):
        recs = [tlb_record("batched", [20.0 + d for d in self.DRIFT]),
                tlb_record("null", [5.0 + d for d in self.DRIFT])]
        rows = {r["design"]: r for r in reader_loss_results(recs)}
        self.assertAlmostEqual(rows["batched"]["vs_null"], 15.0)
        lo, hi = rows["batched"]["vs_null_ci"]
        self.assertAlmostEqual(lo, 15.0)
        self.assertAlmostEqual(hi, 15.0)
        self.assertIsNone(rows["null"]["vs_null"])
        self.assertEqual(rows["batched"]["episodes"], 10)

    def test_a_baseline_off_by_more_than_five_percent_is_flagged(self):
        recs = [tlb_record("naive", [1.0] * 10), tlb_record("batched", [1.0] * 10, base=58000 * 1.04),
                tlb_record("lazy", [1.0] * 10, base=58000 * 1.2)]
        same = {r["design"]: r["baseline_same"] for r in reader_loss_results(recs)}
        self.assertEqual(same, {"naive": True, "batched": True, "lazy": False})
        text = "\n".join(render_reader_loss_text(reader_loss_results(recs)))
        self.assertIn("NO", next(t for t in text.splitlines()
                                 if t.startswith("tlb") and " lazy " in t))


if __name__ == "__main__":
    unittest.main()
