#!/usr/bin/env python3
"""Runs a command on a GPU with only so much of its memory free: a smaller card, on a big one.

    with_free_memory.py GIB COMMAND [ARG...]

Takes all but GIB GiB of the device's free memory in one allocation (this process's CUDA
context included), runs COMMAND, and gives the memory back when it ends. The command then
starts with GIB GiB free, for its own CUDA context and everything it allocates, as it would on
a card of that size with nothing else on it (a desktop's display takes some more there).
Exits with the command's status. Needs torch with CUDA.
"""

import subprocess
import sys

GIB = 1 << 30


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    try:
        keep = int(float(sys.argv[1]) * GIB)
    except ValueError:
        sys.exit(f"with_free_memory: '{sys.argv[1]}' is not a size in GiB")
    try:
        import torch
    except ImportError:
        sys.exit("with_free_memory: needs torch with CUDA, which this Python lacks")
    if not torch.cuda.is_available():
        sys.exit("with_free_memory: no CUDA device")
    free, total = torch.cuda.mem_get_info()
    if free < keep:
        sys.exit(f"with_free_memory: only {free / GIB:.2f} GiB free, fewer than {keep / GIB:.2f}")
    # The caching allocator rounds up to its 2 MiB pages: ask for whole pages below the target.
    page = 2 << 20
    ballast = torch.empty((free - keep) // page * page, dtype=torch.uint8, device="cuda")
    free, total = torch.cuda.mem_get_info()
    print(f"with_free_memory: {free / GIB:.3f} GiB free of {total / GIB:.2f} GiB "
          f"({ballast.numel() / GIB:.2f} GiB held)", flush=True)
    code = subprocess.call(sys.argv[2:])
    del ballast
    sys.exit(code)


if __name__ == "__main__":
    main()
