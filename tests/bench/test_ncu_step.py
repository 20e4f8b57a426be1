#!/usr/bin/env python3
"""bench/ncu_step.py on CSV files laid out as ncu --csv --page raw writes them (a header, a units
row, one row per kernel, ==PROF== lines around): kernel names lose their templates, namespaces
and parameters; values are scaled by their units; the rows split into steps at the embedding and
the last complete step is summed per kernel; too few steps and missing columns are refused.
"""
import os
import subprocess
import sys
import tempfile
import unittest

bench = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
sys.path.insert(0, bench)
import ncu_step  # noqa: E402

HEADER = ['"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
          '"Grid Size","Device","CC","dram__bytes_read.sum","dram__bytes_write.sum","gpu__time_duration.sum"']
UNITS = '"","","","","","","","","","","","byte","Kbyte","usecond"'


def row(i, name, read, write_kb, usecond):
    return (f'"{i}","42","pyramid-bench","host","{name}","1","7","(256, 1, 1)","(64, 1, 1)","0","9.0",'
            f'"{read}","{write_kb}","{usecond}"')


def step_rows(start, first, scale=1):
    names = [first, "void pyramid::cuda::(anonymous namespace)::rms_norm_kernel<float>(const float *, int)",
             "void pyramid::cuda::k4_matvec_int8_kernel<(pyramid::TensorType)12>(const T1 *, int)",
             "void pyramid::cuda::k4_matvec_int8_kernel<(pyramid::TensorType)12>(const T1 *, int)",
             "top_logits_kernel"]
    reads = ["1,000", "2000", "3000000", "3000000", "500"]
    return [row(start + i, n, r, 1, 10 * scale) for i, (n, r) in enumerate(zip(names, reads))]


def write(lines):
    f = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False)
    f.write("==PROF== Connected to process 42\n" + "\n".join(lines) + "\n==PROF== Disconnected\n")
    f.close()
    return f.name


class NcuStep(unittest.TestCase):
    def test_names(self):
        self.assertEqual(ncu_step.kernel_base_name(
            "void pyramid::cuda::(anonymous namespace)::decode_split_kernel<__half, 128>(const T1 *, int)"),
            "decode_split_kernel")
        self.assertEqual(ncu_step.kernel_base_name("embed_kernel"), "embed_kernel")

    def test_last_step_summed_per_kernel(self):
        lines = HEADER + [UNITS] + step_rows(0, "embed_kernel") + step_rows(5, "embed_kernel", scale=2) + \
            [row(10, "embed_kernel", 1, 1, 1)]
        path = write(lines)
        try:
            step, steps = ncu_step.last_step(ncu_step.read_kernels(path))
        finally:
            os.unlink(path)
        self.assertEqual(steps, 2)
        self.assertEqual(len(step), 5)
        by_name, total = ncu_step.summarize(step, copy_bandwidth=3000.0)
        matvec = by_name["k4_matvec_int8_kernel"]
        self.assertEqual(matvec["launches"], 2)
        self.assertAlmostEqual(matvec["time"], 40e-6)  # the second step: 20 us each
        self.assertAlmostEqual(matvec["read"], 6e6)
        self.assertAlmostEqual(matvec["write"], 2000.0)  # 1 Kbyte each
        self.assertEqual(next(iter(by_name)), "k4_matvec_int8_kernel")  # the longest first
        self.assertAlmostEqual(by_name["embed_kernel"]["read"], 1000.0)  # "1,000"
        self.assertAlmostEqual(total["time"], 100e-6)
        self.assertAlmostEqual(matvec["gbs"], (6e6 + 2000) / 40e-6 / 1e9)
        self.assertAlmostEqual(matvec["of_copy"], matvec["gbs"] / 3000.0)
        text = ncu_step.table(by_name, total, 3000.0)
        self.assertIn("| k4_matvec_int8_kernel | 2 | 40.0 | 40.0% |", text)

    def test_refusals(self):
        for lines, message in [(HEADER + [UNITS] + step_rows(0, "embed_kernel"), "need two decode steps"),
                               (['"ID","Kernel Name","gpu__time_duration.sum"', row(0, "x", 1, 1, 1)],
                                "no column for dram__bytes_read.sum"),
                               (["==PROF== nothing"], "no 'Kernel Name' header")]:
            path = write(lines)
            try:
                r = subprocess.run([sys.executable, os.path.join(bench, "ncu_step.py"), path],
                                   capture_output=True, text=True)
            finally:
                os.unlink(path)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(message, r.stderr)


if __name__ == "__main__":
    unittest.main()
