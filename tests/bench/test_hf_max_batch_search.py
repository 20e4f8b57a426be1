#!/usr/bin/env python3
"""The Hugging Face baseline's largest-batch search, against devices that fit a known batch.

Each probe is a whole generate on the GPU, so the search must find the largest fitting batch
(within the precision asked) and, given a good first guess, in few probes.
"""

import os
import random
import sys
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import hf_baseline  # noqa: E402  (imports torch only when it benchmarks)


class Device:
    """fits(b) for a device that holds `capacity` sequences, counting the probes."""

    def __init__(self, capacity, limit, first=0, within=1):
        self.capacity = capacity
        self.probes = []
        self.args = types.SimpleNamespace(max_batch_limit=limit, max_batch_from=first, max_batch_within=within)

    def fits(self, batch):
        assert 1 <= batch <= self.args.max_batch_limit, batch
        self.probes.append(batch)
        return batch <= self.capacity

    def search(self, known_good):
        return hf_baseline.Runner.search_max_batch(self, known_good)


class SearchTest(unittest.TestCase):
    def test_exact_without_a_guess(self):
        device = Device(169, 256)
        self.assertEqual(device.search(32), 169)

    def test_a_good_guess_takes_two_probes(self):
        device = Device(170, 256, first=169, within=8)
        self.assertEqual(device.search(32), 169)
        self.assertEqual(device.probes, [169, 177])

    def test_a_guess_too_high_bisects_below_it(self):
        device = Device(150, 256, first=169, within=8)
        found = device.search(32)
        self.assertTrue(142 < found <= 150, found)

    def test_limits_and_nothing_fitting(self):
        self.assertEqual(Device(1000, 64, first=169).search(0), 64)
        self.assertEqual(Device(0, 64).search(0), 0)
        self.assertEqual(Device(0, 64, first=10, within=4).search(0), 0)

    def test_any_device_any_guess(self):
        rng = random.Random(7)
        for _ in range(2000):
            limit = rng.randint(1, 300)
            capacity = rng.randint(0, 320)
            device = Device(capacity, limit, first=rng.choice([0, rng.randint(1, 400)]),
                            within=rng.randint(1, 16))
            known = min(capacity, rng.choice([0, rng.randint(0, capacity)]))
            found = device.search(known)
            within = device.args.max_batch_within
            expected = min(capacity, limit)
            self.assertTrue(found <= expected and expected - found < within,
                            (capacity, limit, device.args, known, found, device.probes))
            self.assertTrue(found == min(known, limit) or found in device.probes, (found, device.probes))


if __name__ == "__main__":
    unittest.main()
