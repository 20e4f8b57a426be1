#!/usr/bin/env python3
"""pyramid-server driven over HTTP as OpenAI's clients drive it (Python's standard library only).

Starts the server on a free loopback port (--port 0, the port read from its first line) with
stories260K in the LLaMA-2-Chat format and an API key, then checks:
- the key: 401 without it or with another, JSON error bodies;
- a non-streamed chat and the same streamed (server-sent events, role first, [DONE]): the same
  text, finish reason and usage; text completions likewise; a seed repeats a sampled reply;
- stop strings end a reply before them, max_tokens at "length";
- log-probabilities (chat and text shapes, streamed and not) as OpenAI writes them;
- JSON mode (response_format json_object) and structured outputs (json_schema, Ollama's
  format schema): the beginning of a value even from stories260K, whole documents of the schema
  from the default chat model; a schema asking for what is not held to refused, naming where;
- bad input of each kind: not JSON, not an object, wrong types and ranges, a missing field,
  roles out of order, n > 1, a prompt longer than the context (400 naming the lengths), a
  body over --max-body (413), a chunked body (411, unread), an unknown route (404); unknown
  fields are ignored;
- a streamed client that disconnects: its reply ends as cancelled, long before its max_tokens,
  and the running sequences drop to 0;
- concurrent requests beyond --max-batch + --max-queue: 429 with Retry-After, every other
  request answered whole;
- /metrics in Prometheus text, /v1/models (and one model by its id), /health;
- --cors: a browser's preflight answered without the key, the origin on every answer (none without it);
- llama.cpp's /tokenize and /detokenize;
- Ollama's API (/api/chat, /api/generate, /api/tags, /api/version) in its shapes;
- with the default chat model SmolLM2-135M-Instruct, when setup fetched it: the file's chat
  template (ChatML) and a sensible answer; a reply that is not streamed is cancelled by a
  disconnect too.
Usage: server_test.py PYRAMID_SERVER MODEL
"""
import datetime
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

KEY = "test-key-123"
MAX_BODY = 65536


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


class Server:
    def __init__(self, binary, model, options):
        self.process = subprocess.Popen([binary, "--model", model, "--port", "0", "--device", "cpu"] + options,
                                        stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
        line = self.process.stdout.readline()
        match = re.fullmatch(r"listening on http://127\.0\.0\.1:(\d+)\n", line)
        check(match, f"the server's first line: {line!r}")
        self.port = int(match.group(1))

    def request(self, method, path, body=None, key=KEY, raw=None):
        """(status, headers, parsed JSON or text)"""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = {"Content-Type": "application/json"}
        if key is not None:
            headers["Authorization"] = "Bearer " + key
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        text = response.read().decode()
        connection.close()
        content_type = response.getheader("Content-Type", "")
        parsed = json.loads(text) if content_type.startswith("application/json") else text
        return response.status, response, parsed

    def stream(self, path, body):
        """The data of every server-sent event, [DONE] included."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        connection.request("POST", path, body=json.dumps(body),
                           headers={"Content-Type": "application/json", "Authorization": "Bearer " + KEY})
        response = connection.getresponse()
        check(response.status == 200, f"{path} streamed: status {response.status}")
        check(response.getheader("Content-Type", "").startswith("text/event-stream"), "SSE content type")
        events = []
        for line in response.read().decode().split("\n"):
            if line.startswith("data: "):
                events.append(line[len("data: "):])
            else:
                check(line == "" or line.startswith(":"), f"an SSE line that is no event: {line!r}")
        connection.close()
        check(events and events[-1] == "[DONE]", f"the stream ends with [DONE]: {events[-1:]}")
        return [json.loads(e) for e in events[:-1]]

    def metrics(self):
        status, _, text = self.request("GET", "/metrics")
        check(status == 200, f"/metrics: {status}")
        values = {}
        for line in text.splitlines():
            if not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                values[name] = float(value)
        return values

    def stop(self):
        self.process.terminate()
        check(self.process.wait(timeout=30) == 0, "the server stops on SIGTERM with status 0")


def expect_error(server, status, path, body=None, raw=None, key=KEY, param=None, says=None):
    got, response, parsed = server.request("POST" if body is not None or raw is not None else "GET", path,
                                           body=body, raw=raw, key=key)
    what = f"{path} {json.dumps(body)[:80] if body is not None else (raw or '')[:80]!r}"
    check(got == status, f"{what}: status {got}, expected {status}: {parsed}")
    check(isinstance(parsed, dict) and isinstance(parsed.get("error"), dict), f"{what}: no JSON error object: {parsed}")
    error = parsed["error"]
    check(isinstance(error.get("message"), str) and error["message"], f"{what}: no message")
    if param is not None:
        check(error.get("param") == param, f"{what}: param {error.get('param')!r}, expected {param!r}")
    if says is not None:
        for word in says:
            check(word in error["message"], f"{what}: {error['message']!r} does not say {word!r}")
    return response, error


CHAT = {"model": "anything", "messages": [{"role": "system", "content": "You tell stories."},
                                         {"role": "user", "content": "Tell me a story about a cat."}],
        "max_tokens": 40, "temperature": 0}


def test_api_key(server):
    response, error = expect_error(server, 401, "/health", key=None)
    check(error["type"] == "authentication_error", f"401 type: {error}")
    check(response.getheader("WWW-Authenticate") == "Bearer", "401 names the scheme")
    expect_error(server, 401, "/v1/chat/completions", body=CHAT, key="wrong")
    status, _, body = server.request("GET", "/health")
    check(status == 200 and body == {"status": "ok"}, f"/health: {status} {body}")


ORIGIN = "http://localhost:3000"


def test_cors(server):
    """--cors ORIGIN: a browser's preflight is answered without the key, and every answer (an
    error too) lets that origin read it."""
    status, response, _ = server.request("OPTIONS", "/v1/chat/completions", key=None)
    check(status == 204 and response.getheader("Access-Control-Allow-Origin") == ORIGIN and
          "Authorization" in response.getheader("Access-Control-Allow-Headers", "") and
          "POST" in response.getheader("Access-Control-Allow-Methods", ""), f"preflight: {status} {response.getheaders()}")
    for key in (KEY, None):
        status, response, _ = server.request("GET", "/health", key=key)
        check(response.getheader("Access-Control-Allow-Origin") == ORIGIN, f"/health ({status}) without the origin")


def test_models(server):
    status, _, body = server.request("GET", "/v1/models")
    check(status == 200 and body["object"] == "list", f"/v1/models: {body}")
    check([m["id"] for m in body["data"]] == ["stories260K"], f"/v1/models: {body}")
    status, _, one = server.request("GET", "/v1/models/stories260K")
    check(status == 200 and one == body["data"][0], f"/v1/models/stories260K: {one}")
    expect_error(server, 404, "/v1/models/gpt-4", param="model", says=["gpt-4", "stories260K"])


def test_tokenize(server):
    """llama.cpp's /tokenize and /detokenize: the prompt's ids, back to its text; pieces with
    SentencePiece's space; BOS with add_special; control spellings stay text; ids out of range refused."""
    text = "Once upon a time <s>"
    status, _, body = server.request("POST", "/tokenize", {"content": text})
    ids = body["tokens"]
    check(status == 200 and ids and all(isinstance(i, int) and 2 < i < 512 for i in ids), f"/tokenize: {body}")
    pieces = server.request("POST", "/tokenize", {"content": text, "with_pieces": True})[2]["tokens"]
    check([p["id"] for p in pieces] == ids and "".join(p["piece"] for p in pieces) == " " + text, f"pieces: {pieces}")
    special = server.request("POST", "/tokenize", {"content": text, "add_special": True})[2]["tokens"]
    check(special == [1] + ids, f"add_special: {special}")
    status, _, back = server.request("POST", "/detokenize", {"tokens": ids})
    check(status == 200 and back == {"content": text}, f"/detokenize: {back}")
    expect_error(server, 400, "/detokenize", {"tokens": [5, 512]}, param="tokens[1]", says=["511"])
    expect_error(server, 400, "/tokenize", {"content": ["a"]}, param="content")
    expect_error(server, 400, "/tokenize", raw="[1]", says=["object"])


def test_chat(server):
    status, _, whole = server.request("POST", "/v1/chat/completions", CHAT)
    check(status == 200, f"chat: {status} {whole}")
    check(whole["object"] == "chat.completion" and whole["id"].startswith("chatcmpl-"), f"chat: {whole}")
    choice = whole["choices"][0]
    text = choice["message"]["content"]
    check(choice["message"]["role"] == "assistant" and text, f"chat: {choice}")
    usage = whole["usage"]
    check(usage["prompt_tokens"] > 10 and 1 <= usage["completion_tokens"] <= 40, f"usage: {usage}")
    check(usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"], f"usage: {usage}")
    check(choice["finish_reason"] == ("length" if usage["completion_tokens"] == 40 else "stop"), f"chat: {choice}")
    again = server.request("POST", "/v1/chat/completions", CHAT)[2]
    check(again["choices"][0]["message"]["content"] == text, "greedy replies repeat")

    chunks = server.stream("/v1/chat/completions", dict(CHAT, stream=True, stream_options={"include_usage": True}))
    check(all(c["object"] == "chat.completion.chunk" and c["id"] == chunks[0]["id"] for c in chunks), "chunk ids")
    check(chunks[0]["choices"][0]["delta"].get("role") == "assistant", f"the first chunk names the role: {chunks[0]}")
    streamed = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    check(streamed == text, f"streamed {streamed!r} != {text!r}")
    finishes = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
    check(finishes[-1] == choice["finish_reason"] and all(f is None for f in finishes[:-1]), f"finish: {finishes}")
    check(chunks[-1]["choices"] == [] and chunks[-1]["usage"] == usage, f"usage chunk: {chunks[-1]}")
    print(f"chat: {usage['completion_tokens']} tokens, {len(chunks)} chunks streamed alike: {text[:60]!r}")
    return text


def test_completions_and_sampling(server):
    body = {"prompt": "Once upon a time", "max_tokens": 30, "temperature": 0}
    status, _, whole = server.request("POST", "/v1/completions", body)
    check(status == 200 and whole["object"] == "text_completion", f"completions: {whole}")
    text = whole["choices"][0]["text"]
    chunks = server.stream("/v1/completions", dict(body, stream=True))
    check("".join(c["choices"][0]["text"] for c in chunks) == text, "streamed text completion differs")
    # The reply's first token as it follows the prompt (alone, SentencePiece would spell it "▁" + it).
    first_id = server.request("POST", "/tokenize", {"content": "time" + text[:1]})[2]["tokens"][-1]
    banned = server.request("POST", "/v1/completions", dict(body, logit_bias={str(first_id): -100}))[2]
    check(not banned["choices"][0]["text"].startswith(text[:2]), f"logit_bias -100 on {first_id}: {banned}")
    expect_error(server, 400, "/v1/completions", dict(body, logit_bias={"512": 1}), param="logit_bias", says=["512"])
    sampled = dict(body, temperature=1.0, top_p=0.9, seed=7, max_tokens=30)
    first = server.request("POST", "/v1/completions", sampled)[2]["choices"][0]["text"]
    second = server.request("POST", "/v1/completions", sampled)[2]["choices"][0]["text"]
    check(first == second, "a seed repeats a sampled reply")
    return text


def test_stop_and_length(server, text):
    # A stop string from the middle of the greedy reply: the reply ends right before it.
    words = text.split()
    check(len(words) >= 4, f"a reply long enough for a stop string: {text!r}")
    stop = " " + words[len(words) // 2]
    body = {"prompt": "Once upon a time", "max_tokens": 30, "temperature": 0, "stop": ["\u00a7never", stop]}
    status, _, stopped = server.request("POST", "/v1/completions", body)
    choice = stopped["choices"][0]
    check(status == 200 and choice["text"] == text[:text.index(stop)], f"stop {stop!r}: {choice['text']!r}")
    check(choice["finish_reason"] == "stop", f"stop: {choice}")
    chunks = server.stream("/v1/completions", dict(body, stream=True))
    check("".join(c["choices"][0]["text"] for c in chunks) == choice["text"], "streamed stop differs")
    status, _, short = server.request("POST", "/v1/completions", dict(body, stop=None, max_tokens=3))
    check(short["choices"][0]["finish_reason"] == "length" and short["usage"]["completion_tokens"] == 3,
          f"max_tokens 3: {short}")


def test_logprobs(server, text):
    """Log-probabilities, asked for: they change no token; the tokens spell the reply (a text
    completion's first one with its space: the reply continues the prompt); greedy tokens are
    the likeliest; streamed chunks carry the same entries; a stop string's tokens are left out."""
    body = {"prompt": "Once upon a time", "max_tokens": 30, "temperature": 0, "logprobs": 3}
    status, _, whole = server.request("POST", "/v1/completions", body)
    choice = whole["choices"][0]
    check(status == 200 and choice["text"] == text, f"logprobs changed the reply: {choice['text']!r}")
    lp = choice["logprobs"]
    check("".join(lp["tokens"]) == text, f"tokens {lp['tokens']} do not spell {text!r}")
    check(len(lp["tokens"]) == whole["usage"]["completion_tokens"] - (choice["finish_reason"] == "stop"),
          f"one entry a shown token: {len(lp['tokens'])} of {whole['usage']}")
    for token, logprob, top in zip(lp["tokens"], lp["token_logprobs"], lp["top_logprobs"]):
        check(0 < len(top) <= 3 and -50 < logprob <= 0 and max(top.values()) == logprob == top.get(token),
              f"greedy token {token!r} ({logprob}) is the likeliest of {top}")
    offsets = [sum(len(t) for t in lp["tokens"][:i]) for i in range(len(lp["tokens"]))]
    check(lp["text_offset"] == offsets, f"text offsets {lp['text_offset']} != {offsets}")

    chunks = server.stream("/v1/completions", dict(body, stream=True))
    streamed = [t for c in chunks if c["choices"] and c["choices"][0]["logprobs"]
                for t in zip(c["choices"][0]["logprobs"]["tokens"], c["choices"][0]["logprobs"]["token_logprobs"])]
    check(streamed == list(zip(lp["tokens"], lp["token_logprobs"])), "streamed log-probabilities differ")

    words = text.split()
    stop = " " + words[len(words) // 2]
    cut = server.request("POST", "/v1/completions", dict(body, stop=stop))[2]["choices"][0]
    spelled = "".join(cut["logprobs"]["tokens"])
    check(cut["text"] == text[:text.index(stop)] and cut["text"].startswith(spelled) and
          len(cut["logprobs"]["tokens"]) < len(lp["tokens"]), f"stop {stop!r}: {spelled!r} of {cut['text']!r}")

    chat = dict(CHAT, logprobs=True, top_logprobs=2)
    reply = server.request("POST", "/v1/chat/completions", chat)[2]["choices"][0]
    content = reply["logprobs"]["content"]
    spelled = bytes(b for entry in content for b in entry["bytes"]).decode()
    check(spelled.strip() == reply["message"]["content"].strip() and all(len(e["top_logprobs"]) == 2 for e in content),
          f"chat log-probabilities: {spelled!r} against {reply['message']['content']!r}")
    for entry in content:
        ranked = [t["logprob"] for t in entry["top_logprobs"]]
        check(ranked == sorted(ranked, reverse=True) and entry["top_logprobs"][0]["token"] == entry["token"],
              f"greedy: the likeliest first, the drawn token among them: {entry}")
    plain = server.request("POST", "/v1/chat/completions", CHAT)[2]["choices"][0]
    check(plain["logprobs"] is None, f"not asked for: null ({plain})")
    sampled = dict(body, temperature=1.0, seed=11)
    with_lp = server.request("POST", "/v1/completions", sampled)[2]["choices"][0]["text"]
    without = server.request("POST", "/v1/completions", dict(sampled, logprobs=None))[2]["choices"][0]["text"]
    check(with_lp == without, "a seeded sample is the same with and without log-probabilities")
    print(f"logprobs: {len(lp['tokens'])} tokens spell the reply; the first {lp['tokens'][0]!r} at "
          f"{lp['token_logprobs'][0]:.3f}")


def test_json_mode(server):
    """response_format json_object: stories260K, which knows nothing of JSON, still writes the
    beginning of an object (streamed the same); json_schema the beginning of a value of the
    schema; a schema with a keyword that is not held to is refused, not ignored."""
    body = {"prompt": "Once upon a time", "max_tokens": 40, "temperature": 1.0, "seed": 3,
            "response_format": {"type": "json_object"}}
    whole = server.request("POST", "/v1/completions", body)[2]["choices"][0]
    check(whole["text"].lstrip().startswith("{") and whole["finish_reason"] in ("stop", "length"), f"JSON mode: {whole}")
    if whole["finish_reason"] == "stop":
        check(isinstance(json.loads(whole["text"]), dict), f"a finished reply is an object: {whole['text']!r}")
    chunks = server.stream("/v1/completions", dict(body, stream=True))
    check("".join(c["choices"][0]["text"] for c in chunks) == whole["text"], "JSON mode streamed differs")
    schema = {"type": "object", "properties": {"mood": {"enum": ["happy", "sad"]}, "n": {"type": "integer"}},
              "required": ["mood", "n"], "additionalProperties": False}
    structured = dict(body, response_format={"type": "json_schema", "json_schema": {"name": "m", "schema": schema}})
    reply = server.request("POST", "/v1/completions", structured)[2]["choices"][0]
    text = reply["text"].lstrip()
    check(text.startswith('{') and ('"mood"'.startswith(text[1:].lstrip()[:6]) or '"mood"' in text),
          f"a value of the schema begins: {text!r}")
    if reply["finish_reason"] == "stop":
        document = json.loads(text)
        check(list(document) == ["mood", "n"] and document["mood"] in ("happy", "sad") and
              isinstance(document["n"], int), f"a finished reply is a value of the schema: {text!r}")
    expect_error(server, 400, "/v1/chat/completions",
                 dict(CHAT, response_format={"type": "json_schema", "json_schema": {
                     "name": "x", "schema": {"type": "object", "properties": {"code": {"type": "string",
                                                                                       "pattern": "^(?=A)[A-Z]+$"}}}}}),
                 param="response_format.json_schema.schema", says=["/properties/code", "pattern"])
    print(f"JSON mode: {whole['text'][:60]!r} ({whole['finish_reason']}); schema: {text[:60]!r}")


def ndjson(server, path, body):
    """Every line of a streamed Ollama reply, parsed."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    connection.request("POST", path, body=json.dumps(body),
                       headers={"Content-Type": "application/json", "Authorization": "Bearer " + KEY})
    response = connection.getresponse()
    check(response.status == 200 and response.getheader("Content-Type") == "application/x-ndjson",
          f"{path} streamed: {response.status} {response.getheader('Content-Type')}")
    lines = [json.loads(line) for line in response.read().decode().splitlines() if line.strip()]
    connection.close()
    return lines


def test_ollama(server, model, text):
    """Ollama's API: /api/version, /api/tags (the file's size), /api/chat streamed in lines and
    whole alike, /api/generate raw continuing the prompt as /v1/completions does, in the chat
    format otherwise, loading on an empty prompt, JSON mode; errors as {"error": "..."} naming
    Ollama's fields."""
    status, _, version = server.request("GET", "/api/version")
    check(status == 200 and re.fullmatch(r"\d+\.\d+\.\d+", version["version"]), f"/api/version: {version}")
    tags = server.request("GET", "/api/tags")[2]["models"]
    check(len(tags) == 1 and tags[0]["name"] == "stories260K" and tags[0]["size"] == os.path.getsize(model),
          f"/api/tags: {tags}")
    chat = {"model": "anything", "messages": CHAT["messages"], "options": {"temperature": 0, "num_predict": 40}}
    lines = ndjson(server, "/api/chat", chat)
    check(all(not line["done"] for line in lines[:-1]) and lines[-1]["done"], f"done only at the end: {lines[-3:]}")
    check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", lines[0]["created_at"]), f"created_at: {lines[0]}")
    streamed = "".join(line["message"]["content"] for line in lines)
    status, _, whole = server.request("POST", "/api/chat", dict(chat, stream=False))
    check(status == 200 and whole["message"]["content"] == streamed and whole["done_reason"] == lines[-1]["done_reason"],
          f"/api/chat whole {whole} against streamed {streamed!r}")
    check(whole["eval_count"] <= 40 and whole["prompt_eval_count"] > 10 and
          0 < whole["prompt_eval_duration"] <= whole["total_duration"], f"counts and times: {whole}")
    raw = server.request("POST", "/api/generate", {"prompt": "Once upon a time", "raw": True, "stream": False,
                                                  "options": {"temperature": 0, "num_predict": 30}})[2]
    check(raw["response"] == text, f"raw generate {raw['response']!r} != {text!r}")
    chat_generate = server.request("POST", "/api/generate", {"prompt": CHAT["messages"][1]["content"],
                                                            "system": CHAT["messages"][0]["content"], "stream": False,
                                                            "options": {"temperature": 0, "num_predict": 40}})[2]
    check(chat_generate["response"] == streamed, f"generate in the chat format: {chat_generate['response']!r}")
    loaded = server.request("POST", "/api/generate", {"model": "x"})[2]
    check(loaded["done"] and loaded["done_reason"] == "load" and loaded["response"] == "", f"load: {loaded}")
    json_mode = server.request("POST", "/api/generate", {"prompt": "Once upon a time", "format": "json", "stream": False,
                                                        "options": {"seed": 4, "num_predict": 40}})[2]
    check(json_mode["response"].lstrip().startswith("{"), f"format json: {json_mode}")
    for body, field in [(dict(chat, options={"temperature": "hot"}), "options.temperature"),
                        (dict(chat, options={"num_predict": 0}), "options.num_predict"),
                        (dict(chat, format={"type": "object", "properties": {"n": {"multipleOf": 2}}}), "format"),
                        (dict(chat, messages=[{"role": "user", "content": "hi", "images": ["aGk="]}]), "images"),
                        (dict(chat, tools=[{"type": "function"}]), "tools")]:
        status, _, error = server.request("POST", "/api/chat", body)
        check(status == 400 and isinstance(error.get("error"), str) and field in error["error"], f"{field}: {error}")
    print(f"ollama: /api/chat {len(lines)} lines {streamed[:40]!r}, raw generate as /v1/completions")


def test_bad_input(server):
    chat = "/v1/chat/completions"
    expect_error(server, 400, chat, raw='{"messages": [', says=["JSON"])
    expect_error(server, 400, chat, raw="[1, 2]", says=["object"])
    expect_error(server, 400, chat, body={"max_tokens": 5}, param="messages")
    expect_error(server, 400, chat, body=dict(CHAT, max_tokens="ten"), param="max_tokens")
    expect_error(server, 400, chat, body=dict(CHAT, max_tokens=0), param="max_tokens")
    expect_error(server, 400, chat, body=dict(CHAT, temperature=5), param="temperature")
    expect_error(server, 400, chat, body=dict(CHAT, top_p=0), param="top_p")
    expect_error(server, 400, chat, body=dict(CHAT, stream="yes"), param="stream")
    expect_error(server, 400, chat, body=dict(CHAT, stop=[str(i) for i in range(17)]), param="stop")
    expect_error(server, 400, chat, body=dict(CHAT, n=2), param="n")
    expect_error(server, 400, chat, body=dict(CHAT, seed=-1), param="seed")
    expect_error(server, 400, chat, body=dict(CHAT, pyramid={"preset": "no-such"}), param="pyramid")
    expect_error(server, 400, chat, body={"messages": [{"role": "robot", "content": "hi"}]},
                 param="messages[0].role")
    expect_error(server, 400, chat, body={"messages": [{"role": "user", "content": 5}]},
                 param="messages[0].content")
    expect_error(server, 400, chat, body={"messages": [{"role": "user", "content": "hi"},
                                                       {"role": "assistant", "content": "hello"}]},
                 param="messages")
    expect_error(server, 400, "/v1/completions", body={"prompt": 42}, param="prompt")
    # Longer than the context (2048): refused, naming both lengths, never cut.
    long_prompt = "the cat sat on the mat " * 500
    _, error = expect_error(server, 400, "/v1/completions", body={"prompt": long_prompt}, param="prompt",
                            says=["2048"])
    check(re.search(r"takes \d{4,} tokens", error["message"]), f"the prompt's length: {error['message']}")
    _, error = expect_error(server, 400, "/v1/completions", body={"prompt": "Once", "max_tokens": 5000},
                            param="max_tokens", says=["2048", "5000"])
    response, error = expect_error(server, 413, chat, raw=json.dumps(dict(CHAT, padding="x" * MAX_BODY)),
                                   says=[str(MAX_BODY)])
    expect_error(server, 404, "/v1/engines")
    # A chunked body would be read whole past --max-body by the HTTP library: refused unread,
    # and its connection closed (the server answers one request per connection).
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    big = json.dumps({"prompt": "x" * (2 * MAX_BODY)}).encode()
    sock.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + KEY.encode() +
                 b"\r\nTransfer-Encoding: chunked\r\n\r\n" + f"{len(big):x}\r\n".encode() + big + b"\r\n0\r\n\r\n")
    answer = b""
    while piece := sock.recv(65536):
        answer += piece
    sock.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    check(head.startswith(b"HTTP/1.1 411 ") and b"Connection: close" in head, f"a chunked body: {head!r}")
    check("Content-Length" in json.loads(body)["error"]["message"], f"a chunked body: {body!r}")
    # Fields this server does not know are ignored, as OpenAI's clients expect.
    status, _, body = server.request("POST", chat, dict(CHAT, user="me", logit_bias={}, presence_penalty=0.5,
                                                        pyramid={"policy": "pyramid"}))
    check(status == 200 and body["choices"][0]["message"]["content"], f"unknown fields: {status} {body}")


def send_raw(server, path, body):
    """A request on a socket of our own, to close it midway."""
    sock = socket.create_connection(("127.0.0.1", server.port))
    body = json.dumps(body)
    sock.sendall((f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {KEY}\r\n"
                  f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n{body}").encode())
    return sock


def wait_for_cancel(server, before, asked):
    """The reply of a closed connection ends as cancelled, before its max_tokens; returns the
    tokens it generated."""
    key = 'pyramid_replies_total{finish_reason="cancelled"}'
    deadline = time.time() + 20
    while True:
        after = server.metrics()
        if after.get(key, 0) == before.get(key, 0) + 1:
            break
        check(time.time() < deadline, "the disconnected reply was never cancelled")
        time.sleep(0.05)
    generated = after["pyramid_completion_tokens_total"] - before["pyramid_completion_tokens_total"]
    check(generated < asked, f"the disconnected reply generated {generated} of its {asked} tokens anyway")
    check(after["pyramid_running_sequences"] == 0, "a sequence still runs after the disconnect")
    return generated


def test_disconnect_cancels(server):
    before = server.metrics()
    asked = 1900
    sock = send_raw(server, "/v1/completions",
                    {"prompt": "Once upon a time", "max_tokens": asked, "temperature": 0, "stream": True})
    received = b""
    while b"data: {" not in received:
        piece = sock.recv(4096)
        check(piece, "the stream closed before its first event")
        received += piece
    sock.close()
    generated = wait_for_cancel(server, before, asked)
    print(f"disconnect: cancelled after {generated:.0f} of {asked} tokens")


def test_queue_full(server):
    results = []

    def one():
        results.append(server.request("POST", "/v1/completions",
                                      {"prompt": "Once upon a time", "max_tokens": 1500, "temperature": 0}))

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    statuses = sorted(status for status, _, _ in results)
    check(statuses.count(429) >= 1 and statuses.count(200) >= 3, f"8 requests at once, 3 places: {statuses}")
    for status, response, body in results:
        if status == 429:
            check(response.getheader("Retry-After") == "1" and body["error"]["type"] == "rate_limit_error",
                  f"429: {body}")
        else:
            check(status == 200 and body["usage"]["completion_tokens"] >= 1 and body["choices"][0]["finish_reason"],
                  f"an answered request: {body}")
    print(f"8 requests at once: {statuses.count(200)} answered, {statuses.count(429)} told to retry")


def test_metrics(server):
    values = server.metrics()
    check(values['pyramid_requests_total{endpoint="/v1/chat/completions",status="200"}'] >= 3, "request counts")
    check(values['pyramid_requests_total{endpoint="/v1/chat/completions",status="400"}'] >= 10, "400 counts")
    check(values['pyramid_requests_total{endpoint="other",status="404"}'] == 1, "other paths count as other")
    check(values["pyramid_completion_tokens_total"] > 100 and values["pyramid_prompt_tokens_total"] > 0, "tokens")
    check(values["pyramid_queue_length"] == 0 and values["pyramid_kv_cache_bytes"] == 0, "an idle server")
    check('pyramid_kv_cache_layer_entries{layer="4"}' in values, "per-layer entries of 5 layers")


def test_default_chat_model(binary):
    """With the default chat model (when setup fetched it): ChatML from the file's template, a
    sensible answer, and a reply that is not streamed cancelled by a disconnect too (the
    server writes a space before its JSON object every second, so the closed connection shows)."""
    data = os.environ.get("XDG_DATA_HOME", os.path.expanduser("~/.local/share"))
    smollm = os.path.join(data, "pyramidchat/models/SmolLM2-135M-Instruct.Q4_1.gguf")
    if not os.path.exists(smollm):
        print(f"no {smollm}: the default chat model's checks are left out")
        return
    server = Server(binary, smollm, ["--api-key", KEY])
    try:
        status, _, body = server.request("POST", "/v1/chat/completions", {
            "messages": [{"role": "user", "content": "What is the capital of France?"}], "max_tokens": 32,
            "temperature": 0})
        answer = body["choices"][0]["message"]["content"]
        check(status == 200 and "Paris" in answer, f"SmolLM2 on France: {answer!r}")
        check(server.request("GET", "/health")[1].getheader("Access-Control-Allow-Origin") is None,
              "without --cors no web page may read the answers")
        status, _, body = server.request("POST", "/v1/chat/completions", {
            "messages": [{"role": "user", "content": "Give me a JSON object with the name and age of a person."}],
            "max_tokens": 100, "temperature": 0, "response_format": {"type": "json_object"}})
        person = body["choices"][0]
        check(status == 200 and person["finish_reason"] == "stop" and
              {"name", "age"} <= set(json.loads(person["message"]["content"])), f"SmolLM2 in JSON mode: {person}")
        # Structured outputs: the schema's keys in its order, its types, its enum, bounds,
        # format and pattern (OpenAI's shape and Ollama's format).
        schema = {"type": "object", "properties": {
            "city": {"type": "string", "maxLength": 40}, "country": {"type": "string"},
            "continent": {"enum": ["Africa", "America", "Asia", "Europe", "Oceania"]},
            "population_millions": {"type": "number", "exclusiveMinimum": 0, "maximum": 40},
            "founded": {"type": "string", "format": "date"},
            "airport": {"type": "string", "pattern": "^[A-Z]{3}$"}},
            "required": ["city", "country", "continent", "population_millions", "founded", "airport"]}
        question = [{"role": "user", "content": "Tell me about Paris as JSON."}]
        status, _, body = server.request("POST", "/v1/chat/completions", {
            "messages": question, "max_tokens": 160, "temperature": 0,
            "response_format": {"type": "json_schema", "json_schema": {"name": "city", "strict": True, "schema": schema}}})
        ollama = server.request("POST", "/api/chat", {"messages": question, "stream": False, "format": schema,
                                                      "options": {"temperature": 0, "num_predict": 160}})[2]
        for reply, ended in ((body["choices"][0]["message"]["content"], body["choices"][0]["finish_reason"] == "stop"),
                             (ollama["message"]["content"], ollama["done_reason"] == "stop")):
            city = json.loads(reply)
            check(ended and list(city) == list(schema["properties"]) and len(city["city"]) <= 40 and
                  city["continent"] in schema["properties"]["continent"]["enum"] and
                  isinstance(city["population_millions"], (int, float)) and 0 < city["population_millions"] <= 40 and
                  datetime.date.fromisoformat(city["founded"]) and re.fullmatch("[A-Z]{3}", city["airport"]),
                  f"SmolLM2 with a schema: {reply!r}")
        print(f"SmolLM2 with a schema: {reply!r}")
        before = server.metrics()
        asked = 1000
        # Greedy, so the reply cannot end by itself before the disconnect shows (about 3 s): this
        # essay runs to max_tokens, where a sampled one sometimes ended within 150 tokens and
        # was never cancelled.
        sock = send_raw(server, "/v1/chat/completions", {
            "messages": [{"role": "user", "content": "Write a long essay about the sea."}], "max_tokens": asked,
            "temperature": 0})
        time.sleep(1.5)
        sock.close()
        generated = wait_for_cancel(server, before, asked)
        print(f"SmolLM2: {answer!r}; a reply not streamed cancelled after {generated:.0f} of {asked} tokens")
    finally:
        server.stop()


def main():
    binary, model = sys.argv[1], sys.argv[2]
    if not os.path.exists(model):
        print(f"SKIP: {model} not found (shared data not found)")
        sys.exit(77)
    server = Server(binary, model, ["--format", "llama-2-chat", "--api-key", KEY, "--cors", ORIGIN, "--max-batch", "2",
                                    "--max-queue", "1", "--max-body", str(MAX_BODY)])
    try:
        test_api_key(server)
        test_cors(server)
        test_models(server)
        test_tokenize(server)
        test_chat(server)
        text = test_completions_and_sampling(server)
        test_stop_and_length(server, text)
        test_logprobs(server, text)
        test_json_mode(server)
        test_ollama(server, model, text)
        test_bad_input(server)
        test_disconnect_cancels(server)
        test_queue_full(server)
        test_metrics(server)
    finally:
        if server.process.poll() is None:
            server.stop()
    test_default_chat_model(binary)
    print("pyramid-server: all checks passed")


if __name__ == "__main__":
    main()
