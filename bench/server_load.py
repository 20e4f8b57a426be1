#!/usr/bin/env python3
"""A bounded load test of pyramid-server on loopback (standard library only).

For each compression policy it starts pyramid-server (--port 0, --max-batch at least the most
clients), sends one warm-up request, then for each client count N sends a fixed number of
streamed chat requests from N concurrent clients (each client sends its share one after the
other) and stops by itself. Every request must be answered completely: HTTP 200, a
server-sent event per piece, a finish reason, the usage, and data: [DONE]; anything else
fails the run (exit status 1), so a table is never made of partial answers.

Measured per run: throughput (completion tokens of all requests / wall time of the run), time
to first token (request sent -> first content event; median and 90th percentile), and from
/metrics, polled every 0.2 s, the highest KV bytes the running sequences held and what full
caches would have held then.

Usage (from the repository root, after building pyramid-server):
  python3 bench/server_load.py --server build/app/server/pyramid-server \
      --model ~/.local/share/pyramidchat/models/SmolLM2-135M-Instruct.Q4_1.gguf \
      --clients 1,4,16 --policies full,pyramid --requests 16 --max-tokens 64 \
      --out docs/perf/server-load.json
It prints a Markdown table and writes the runs as JSON.
"""
import argparse
import http.client
import json
import platform
import re
import statistics
import subprocess
import sys
import threading
import time

# Questions that ask for the reading of a passage, so the prompt is long enough (about 300
# tokens) for PyramidInfer to have something to compress.
PASSAGE = (
    "The lighthouse keeper rose before dawn every day for thirty years. He climbed the one hundred "
    "and twelve steps of the tower, cleaned the great lens with a soft cloth, trimmed the wick and "
    "wrote the weather in a leather book: the wind, the height of the waves, the ships that passed. "
    "In winter the storms came from the north-west and the spray reached the gallery; in summer "
    "the fog rolled in from the sea for days, and he sounded the horn every thirty seconds until "
    "his arms ached. When the light was made automatic, the engineers asked him what he would do "
    "now. He said he would go on writing the weather, because the sea did not know that nobody was "
    "watching it any more. He kept the book for another eleven years, until the last page was full, "
    "and then he gave it to the village school, where the children read it aloud on stormy days "
    "and argued about which ships had been the bravest.")
QUESTIONS = [
    "Summarize the passage in two sentences.",
    "Why did the keeper go on writing the weather?",
    "What did the keeper do every morning?",
    "What happened to the book at the end?",
    "Describe the storms in winter.",
    "What did the keeper do in the fog?",
    "Give the passage a title and explain it.",
    "What changed when the light was made automatic?",
]


def fail(message):
    print("server_load: " + message, file=sys.stderr)
    sys.exit(1)


class Server:
    def __init__(self, binary, model, policy, max_batch, extra):
        args = [binary, "--model", model, "--port", "0", "--policy", policy, "--max-batch", str(max_batch),
                "--max-queue", "256", "--device", "cpu"] + extra
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        match = re.fullmatch(r"listening on http://127\.0\.0\.1:(\d+)\n", line)
        if not match:
            self.process.kill()
            fail(f"pyramid-server did not start: {line!r} {self.process.stderr.read()}")
        self.port = int(match.group(1))
        self.command = " ".join(args)

    def metrics(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        connection.request("GET", "/metrics")
        text = connection.getresponse().read().decode()
        connection.close()
        values = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                values[name] = float(value)
        return values

    def stop(self):
        self.process.terminate()
        if self.process.wait(timeout=60) != 0:
            fail(f"pyramid-server exited with {self.process.returncode}: {self.process.stderr.read()}")


def one_request(port, question, max_tokens):
    """Streams one chat; returns (time to first token in s, completion tokens). Fails the run
    on anything but a complete answer."""
    body = json.dumps({"messages": [{"role": "user", "content": PASSAGE + "\n\n" + question}],
                       "max_tokens": max_tokens, "temperature": 0, "stream": True,
                       "stream_options": {"include_usage": True}})
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    start = time.perf_counter()
    connection.request("POST", "/v1/chat/completions", body=body, headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    if response.status != 200:
        fail(f"HTTP {response.status}: {response.read()[:300]!r}")
    first = None
    usage = finish = None
    done = False
    for raw in response:
        line = raw.decode().rstrip("\n")
        if not line.startswith("data: "):
            continue
        data = line[len("data: "):]
        if data == "[DONE]":
            done = True
            break
        event = json.loads(data)
        if "error" in event:
            fail(f"an error event: {event}")
        if event.get("usage"):
            usage = event["usage"]
        for choice in event.get("choices", []):
            if choice["delta"].get("content") and first is None:
                first = time.perf_counter() - start
            finish = choice.get("finish_reason") or finish
    connection.close()
    if not done or usage is None or finish not in ("stop", "length"):
        fail(f"an incomplete answer: done={done} usage={usage} finish={finish}")
    if first is None:  # an empty reply: its first token was its end
        first = time.perf_counter() - start
    return first, usage["completion_tokens"]


def run(server, clients, requests, max_tokens):
    ttfts, tokens, lock = [], [0], threading.Lock()
    peak = {"kv": 0.0, "full": 0.0}
    stop_polling = threading.Event()

    def poll():
        while not stop_polling.is_set():
            m = server.metrics()
            if m["pyramid_kv_cache_bytes"] > peak["kv"]:
                peak.update(kv=m["pyramid_kv_cache_bytes"], full=m["pyramid_kv_cache_full_bytes"])
            stop_polling.wait(0.2)

    def client(index):
        for r in range(index, requests, clients):
            ttft, n = one_request(server.port, QUESTIONS[r % len(QUESTIONS)], max_tokens)
            with lock:
                ttfts.append(ttft)
                tokens[0] += n

    poller = threading.Thread(target=poll)
    poller.start()
    start = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    stop_polling.set()
    poller.join()
    if len(ttfts) != requests:
        fail(f"{len(ttfts)} of {requests} requests answered")
    ttfts.sort()
    return {"clients": clients, "requests": requests, "completion_tokens": tokens[0], "wall_s": round(wall, 2),
            "throughput_tokens_per_s": round(tokens[0] / wall, 1),
            "ttft_median_ms": round(1e3 * statistics.median(ttfts)),
            "ttft_p90_ms": round(1e3 * ttfts[min(len(ttfts) - 1, int(0.9 * len(ttfts)))]),
            "peak_kv_bytes": int(peak["kv"]), "full_kv_bytes_at_peak": int(peak["full"])}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", required=True, help="the pyramid-server program")
    parser.add_argument("--model", required=True)
    parser.add_argument("--clients", default="1,4,16", help="concurrent clients, comma-separated")
    parser.add_argument("--policies", default="full,pyramid")
    parser.add_argument("--requests", type=int, default=16, help="requests per run")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--out", help="JSON file for the runs")
    parser.add_argument("server_args", nargs="*", help="more pyramid-server options (after --)")
    args = parser.parse_args()
    clients = [int(c) for c in args.clients.split(",")]
    runs, commands = [], []
    for policy in args.policies.split(","):
        server = Server(args.server, args.model, policy, max(clients), args.server_args)
        commands.append(server.command)
        one_request(server.port, QUESTIONS[0], 4)  # warm-up: buffers, pages of the weights
        for n in clients:
            result = run(server, n, args.requests, args.max_tokens)
            result["policy"] = policy
            runs.append(result)
            print(f"{policy} {n} clients: {result}", file=sys.stderr)
        server.stop()

    print("| policy | clients | requests | tokens | wall s | tokens/s | TTFT median ms | TTFT p90 ms | peak KV KiB | full KV KiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in runs:
        print(f"| {r['policy']} | {r['clients']} | {r['requests']} | {r['completion_tokens']} | {r['wall_s']} | "
              f"{r['throughput_tokens_per_s']} | {r['ttft_median_ms']} | {r['ttft_p90_ms']} | "
              f"{r['peak_kv_bytes'] // 1024} | {r['full_kv_bytes_at_peak'] // 1024} |")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"tool": "server_load.py", "model": args.model, "max_tokens": args.max_tokens,
                       "servers": commands, "machine": platform.platform(), "runs": runs}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
