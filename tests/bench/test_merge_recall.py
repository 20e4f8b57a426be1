#!/usr/bin/env python3
"""bench/merge_recall.py, on small recall files made here: slices of one case file join into
runs whose totals are recomputed, a run at two settings is named by its parameters, a case the
full cache scored differently in two files stops the merge, the full cache's time counts once,
and pairs count the cases only one side recalls.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, bench)
import merge_recall  # noqa: E402

MODEL = "/models/SmolLM2.gguf"


def case(case_id, logprob, recalled, kv=100, full_kv=100):
    return {"id": case_id, "tokens": 10, "answer_logprob": logprob, "recalled": recalled, "kv_bytes": kv,
            "full_kv_bytes": full_kv, "meta": {"fact": "number"}}


def run(label, parameters, cases, seconds=10.0, mode="extend"):
    series = "full" if label == "full" else label
    return {"label": label, "series": series, "policy": series, "parameters": parameters, "mode": mode,
            "config": {"policy": series, "parameters": parameters}, "seconds": seconds, "per_case": cases}


FULL_A = [case("a1", -0.5, True), case("a2", -1.0, True)]
FULL_B = [case("b1", -0.2, True), case("b2", -4.0, False)]


class MergeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, runs):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            json.dump({"model": MODEL, "cases": name, "runs": runs}, f)
        return path

    def slices(self):
        """Two slices of four cases, SnapKV at two budgets in each."""
        a = self.write("a.json", [run("full", "no compression", FULL_A, 30.0),
                                  run("snapkv", "keeps 0.5 of full", [case("a1", -2.5, False, 50), case("a2", -1.5, True, 50)]),
                                  run("snapkv", "keeps 0.75 of full", [case("a1", -1.0, True, 75), case("a2", -1.0, True, 75)])])
        b = self.write("b.json", [run("full", "no compression", FULL_B, 30.0),
                                  run("snapkv", "keeps 0.5 of full", [case("b1", -0.2, True, 50), case("b2", -6.0, False, 50)]),
                                  run("snapkv", "keeps 0.75 of full", [case("b1", -0.2, True, 75), case("b2", -4.0, False, 75)])])
        return a, b

    def test_slices_join_with_totals_recomputed(self):
        merged = merge_recall.merge(list(self.slices()))
        runs = {r["label"]: r for r in merged["runs"]}
        self.assertEqual(set(runs), {"full", "snapkv (keeps 0.5 of full)", "snapkv (keeps 0.75 of full)"})
        half = runs["snapkv (keeps 0.5 of full)"]
        self.assertEqual(half["cases"], 4)
        self.assertEqual(half["recalled"], 2)
        self.assertAlmostEqual(half["mean_answer_logprob"], (-2.5 - 1.5 - 0.2 - 6.0) / 4)
        # paired with the full cache: differences -2.0, -0.5, 0.0, -2.0
        self.assertAlmostEqual(half["delta_logprob_vs_full"], -4.5 / 4)
        self.assertAlmostEqual(half["kv_fraction"], 0.5)
        self.assertEqual(runs["full"]["seconds"], 60.0)

    def test_a_merged_file_merges_again_unchanged(self):
        once = merge_recall.merge(list(self.slices()))
        path = self.write("merged.json", once["runs"])
        again = merge_recall.merge([path])
        self.assertEqual([r["label"] for r in again["runs"]], [r["label"] for r in once["runs"]])
        self.assertEqual([r["per_case"] for r in again["runs"]], [r["per_case"] for r in once["runs"]])

    def test_the_full_cache_scored_again_counts_its_time_once(self):
        # A run of a new policy that scored the full cache again, on the same cases.
        a, b = self.slices()
        local = self.write("local.json", [run("full", "no compression", FULL_A + FULL_B, 60.0),
                                          run("local", "keeps 0.5 of full", [case(i, -3.0, False, 50) for i in
                                                                             ["a1", "a2", "b1", "b2"]], 40.0)])
        merged = merge_recall.merge([a, b, local])
        runs = {r["label"]: r for r in merged["runs"]}
        self.assertEqual(runs["full"]["seconds"], 60.0)
        self.assertEqual(runs["local"]["seconds"], 40.0)

    def test_a_full_cache_read_from_a_reference_times_nothing(self):
        # recall --reference: the new run's file comes first, its full cache copied, not scored.
        a, b = self.slices()
        copied = run("full", "no compression", FULL_A + FULL_B, 0.0)
        copied["reference"] = "earlier.json"
        local = self.write("local.json", [copied, run("local", "keeps 0.5 of full",
                                                      [case(i, -3.0, False, 50) for i in ["a1", "a2", "b1", "b2"]],
                                                      40.0)])
        merged = merge_recall.merge([local, a, b])
        runs = {r["label"]: r for r in merged["runs"]}
        self.assertEqual(runs["full"]["seconds"], 60.0)
        self.assertNotIn("reference", runs["full"])
        alone = {r["label"]: r for r in merge_recall.merge([local])["runs"]}
        self.assertEqual(alone["full"]["reference"], "earlier.json")

    def test_a_full_cache_scored_otherwise_stops_the_merge(self):
        a, _ = self.slices()
        other = self.write("other.json", [run("full", "no compression", [case("a1", -0.6, True), FULL_A[1]])])
        with self.assertRaises(SystemExit) as stop:
            merge_recall.merge([a, other])
        self.assertIn("not the same engine", str(stop.exception))

    def test_a_run_of_other_cases_than_the_full_cache_stops_the_merge(self):
        a, _ = self.slices()
        partial = self.write("partial.json", [run("local", "keeps 0.5 of full", [case("b1", -1.0, True)])])
        with self.assertRaises(SystemExit) as stop:
            merge_recall.merge([a, partial])
        self.assertIn("scored other cases than the full cache", str(stop.exception))

    def test_pairs_count_the_cases_one_side_recalls(self):
        merged = merge_recall.merge(list(self.slices()))
        [line] = merge_recall.compare(merged, "snapkv (keeps 0.75 of full)", "snapkv (keeps 0.5 of full)")
        cells = [c.strip() for c in line.strip("|").split("|")]
        # a1 only at 0.75; a2, b1 both; b2 neither
        self.assertEqual(cells[2:3] + cells[4:7], ["4", "2", "1", "0"])
        self.assertEqual(merge_recall.sign_test(1, 1), 1.0)
        self.assertAlmostEqual(merge_recall.sign_test(0, 5), 2 / 32)

    def test_a_pair_naming_no_run_is_refused_before_writing(self):
        a, b = self.slices()
        out = os.path.join(self.dir.name, "out.json")
        result = subprocess.run([sys.executable, os.path.join(bench, "merge_recall.py"), "--out", out,
                                 "--pair", "snapkv vs full", a, b], capture_output=True, text=True)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn('no run is "snapkv"', result.stderr)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
