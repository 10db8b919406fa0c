"""The llm segmenter through its real HTTP path, against a scripted OpenAI-compatible server.

The server (http.server in a thread, 127.0.0.1, port 0) answers each request
by the line it carries (the last user message, after the prompt's first
line), following a script: a list of behaviours, one per attempt, the last
repeated. It counts the requests it gets per line. Each case's expected
words and fidelity counts are worked out by hand in its comments.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from cws_bench.errors import SegmenterError
from cws_bench.segmenters import get_segmenter
from cws_bench.segmenters.llm import DEFAULT_PROMPT
from cws_bench.segmenters.llm_backends import retry_delay

PROMPT_HEAD = DEFAULT_PROMPT.split("{text}")[0]


class Script:
    """What the server answers, per line: a list of behaviours, one per attempt."""

    def __init__(self) -> None:
        self.replies: dict[str, list[tuple]] = {}
        self.requests: dict[str, int] = {}
        self.bodies: list[dict] = []
        self.headers: list[dict] = []
        self.lock = threading.Lock()
        self.held = 0  # requests waiting in a "hold"
        self.release = threading.Event()
        self.sent = 0  # bytes of a "huge" answer written

    def next(self, line: str) -> tuple:
        with self.lock:
            count = self.requests.get(line, 0)
            self.requests[line] = count + 1
        script = self.replies.get(line, [("json", "")])
        return script[min(count, len(script) - 1)]

    @property
    def total(self) -> int:
        return sum(self.requests.values())


def _completion(content: str) -> bytes:
    return json.dumps(
        {
            "id": "x",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 7, "total_tokens": 27},
        },
        ensure_ascii=False,
    ).encode("utf-8")


def make_handler(script: Script):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with script.lock:
                script.bodies.append(body)
                script.headers.append(dict(self.headers))
            line = body["messages"][-1]["content"].removeprefix(PROMPT_HEAD)
            behaviour = script.next(line)
            kind = behaviour[0]
            if kind == "sleep":  # ("sleep", seconds, then-behaviour)
                time.sleep(behaviour[1])
                behaviour = behaviour[2]
                kind = behaviour[0]
            try:
                if kind == "json":
                    self._send(200, _completion(behaviour[1]))
                elif kind == "stream":  # ("stream", [pieces])
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    for piece in behaviour[1]:
                        chunk = {"choices": [{"index": 0, "delta": {"content": piece}}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                    usage = {"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 3}}
                    self.wfile.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())
                elif kind == "status":  # ("status", code, headers)
                    self._send(behaviour[1], b'{"error": "scripted"}', behaviour[2])
                elif kind == "malformed":
                    self._send(200, b'{"choices": [{"message": ')
                elif kind == "cut_stream":  # ("cut_stream", [pieces]): no finish, no [DONE]
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    for piece in behaviour[1]:
                        chunk = {"choices": [{"index": 0, "delta": {"content": piece}}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                elif kind == "finish_then_hold":  # a finish_reason, no [DONE], open
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    for index, piece in enumerate(behaviour[1]):
                        last = index == len(behaviour[1]) - 1
                        choice = {
                            "delta": {"content": piece},
                            "finish_reason": "stop" if last else None,
                        }
                        self.wfile.write(f"data: {json.dumps({'choices': [choice]})}\n\n".encode())
                    self.wfile.flush()
                    script.release.wait(60)
                elif kind == "cut_chunked":  # ("cut_chunked", [pieces]): no last chunk
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for piece in behaviour[1]:
                        chunk = {"choices": [{"index": 0, "delta": {"content": piece}}]}
                        data = f"data: {json.dumps(chunk)}\n\n".encode()
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                elif kind == "short_body":  # ("short_body", content): Content-Length too long
                    data = _completion(behaviour[1])
                    self._send(200, data[: len(data) // 2], {"Content-Length": str(len(data))})
                elif kind == "huge":  # ("huge", bytes): one JSON answer of that many bytes
                    script.sent = 0
                    size = behaviour[1]
                    head = b'{"choices": [{"message": {"content": "'
                    self._send_head(200, len(head) + size + 4)
                    self.wfile.write(head)
                    block = b"x" * 65_536
                    while script.sent < size:
                        self.wfile.write(block)
                        script.sent += len(block)
                elif kind == "trickle":  # ("trickle", seconds): a byte every `seconds`
                    data = _completion("我 爱 北京")
                    self._send_head(200, len(data))
                    for byte in data:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(behaviour[1])
                elif kind == "trickle_head":  # ("trickle_head", seconds): the status line too
                    data = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n" * 20
                    for byte in data:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(behaviour[1])
                elif kind == "echo":  # ("echo", code): an error body that quotes the headers
                    self._send(behaviour[1], json.dumps({"error": dict(self.headers)}).encode())
                elif kind == "hold":  # wait for the test's release (at most 60 s)
                    with script.lock:
                        script.held += 1
                    script.release.wait(60)
            except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                pass

        def _send_head(self, code: int, length: int) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(length))
            self.end_headers()

        def _send(self, code: int, data: bytes, headers: dict | None = None) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            headers = {"Content-Length": str(len(data)), **(headers or {})}
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


@pytest.fixture
def server(tmp_path, monkeypatch, serve_http):
    """A scripted server on 127.0.0.1 and a fresh reply cache; both gone after the test."""
    monkeypatch.setenv("CWS_BENCH_LLM_CACHE", str(tmp_path / "llm-cache"))
    script = Script()
    httpd = serve_http(make_handler(script))
    script.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    yield script
    script.release.set()  # a held request ends with the test


def llm(script: Script, **options):
    defaults = {
        "base_url": script.url,
        "model": "scripted",
        "backoff": 0.01,
        "timeout": 5.0,
        "stream": False,
    }
    return get_segmenter("llm", **{**defaults, **options})


def fidelity(segmenter, index: int = 0) -> tuple:
    record = segmenter.diagnostics()[index]
    return (
        record["altered"],
        record["inserted"],
        record["deleted"],
        record["substituted"],
        record["refused"],
        record["empty"],
    )


def test_a_correct_reply_gives_its_words_unchanged(server):
    server.replies["我爱北京天安门"] = [("json", "我 爱 北京 天安门")]
    seg = llm(server)
    assert seg.segment(["我爱北京天安门"]) == [["我", "爱", "北京", "天安门"]]
    assert fidelity(seg) == (False, 0, 0, 0, False, False)
    assert server.requests == {"我爱北京天安门": 1}
    body = server.bodies[0]
    assert body["temperature"] == 0 and body["model"] == "scripted"
    assert body["max_tokens"] == 3 * 7 + 32  # the default bound: 3 per character + 32
    request = seg.diagnostics()[0]["request"]
    assert (request["input_tokens"], request["output_tokens"]) == (20, 7)  # the usage given
    assert request["start"] <= request["first_token"] == request["end"]  # not streamed


def test_half_width_punctuation_is_substituted_and_repaired_onto_the_original(server):
    # 你好，世界！ answered as "你好 , 世界 !": the reply's text 你好,世界! has the two
    # full-width marks replaced one for one (2 substituted). Its boundaries after
    # 你好 (2), after "," (3) and after 世界 (5) land at the same offsets of the line.
    server.replies["你好，世界！"] = [("json", "你好 , 世界 !")]
    seg = llm(server)
    assert seg.segment(["你好，世界！"]) == [["你好", "，", "世界", "！"]]
    assert fidelity(seg) == (True, 0, 0, 2, False, False)
    assert seg.diagnostics()[0]["output"] == "repaired"


def test_a_dropped_character_is_glued_to_the_word_before_it(server):
    # 我们今天去公园 answered "我们 今天 去 园": 公 is lost (1 deleted). The reply's
    # boundary between 去 and 园 (offset 5 of the reply) is at the point of the loss:
    # it lands after 公 (offset 6 of the line), so 公 joins 去: 我们 今天 去公 园.
    server.replies["我们今天去公园"] = [("json", "我们 今天 去 园")]
    seg = llm(server)
    assert seg.segment(["我们今天去公园"]) == [["我们", "今天", "去公", "园"]]
    assert fidelity(seg) == (True, 0, 1, 0, False, False)


def test_an_added_character_contributes_no_character(server):
    # 我爱北京 answered "我 很 爱 北京": 很 is inserted (1 inserted) between 我 and 爱;
    # the boundaries on both sides of it (reply offsets 1 and 2) land at line offset 1,
    # and the one after 爱 (reply 3) at 2: 我 爱 北京.
    server.replies["我爱北京"] = [("json", "我 很 爱 北京")]
    seg = llm(server)
    assert seg.segment(["我爱北京"]) == [["我", "爱", "北京"]]
    assert fidelity(seg) == (True, 1, 0, 0, False, False)


def test_a_repeated_character_counts_as_inserted(server):
    # 我们走吧 answered "我们们 走 吧": one 们 too many (1 inserted, whichever of the
    # two the alignment takes for the line's). The boundary after 我们们 (reply 3) lands
    # after the line's 们 (2), the one after 走 (reply 4) at 3: 我们 走 吧.
    server.replies["我们走吧"] = [("json", "我们们 走 吧")]
    seg = llm(server)
    assert seg.segment(["我们走吧"]) == [["我们", "走", "吧"]]
    assert fidelity(seg) == (True, 1, 0, 0, False, False)


def test_an_explanation_before_the_answer_is_stripped(server):
    # Two non-blank lines: the first shares none of 我爱北京's characters, the second all
    # four, so the second is the answer (the explanation is dropped, nothing is altered).
    server.replies["我爱北京"] = [("json", "好的，以下是分词结果：\n\n我 爱 北京")]
    server.replies["他来了"] = [("json", "分词结果：他 来 了")]  # a marker on the answer line
    seg = llm(server)
    assert seg.segment(["我爱北京", "他来了"]) == [["我", "爱", "北京"], ["他", "来", "了"]]
    assert fidelity(seg, 0) == fidelity(seg, 1) == (False, 0, 0, 0, False, False)


def test_a_refusal_leaves_the_line_unsegmented(server):
    # 我爱北京 answered "抱歉，我无法完成这个任务。" (13 characters): only 我 can be kept
    # in common (1 of 4 < half), so it is a refusal and the line is one word. The
    # alignment keeps 我 (cost 12 against 13 without it): the 3 reply characters before
    # 我 are inserted, then the line's 爱北京 are substituted by 3 of the 9 reply
    # characters after it and the other 6 inserted: 9 inserted, 3 substituted.
    server.replies["我爱北京"] = [("json", "抱歉，我无法完成这个任务。")]
    seg = llm(server)
    assert seg.segment(["我爱北京"]) == [["我爱北京"]]
    assert fidelity(seg) == (True, 9, 0, 3, True, False)
    assert seg.diagnostics()[0]["output"] == "unsegmented"


def test_an_empty_reply_leaves_the_line_unsegmented(server):
    # Nothing to align: all 4 characters of the line count as deleted.
    server.replies["我爱北京"] = [("json", "")]
    seg = llm(server)
    assert seg.segment(["我爱北京"]) == [["我爱北京"]]
    assert fidelity(seg) == (True, 0, 4, 0, False, True)


def test_on_altered_unsegmented_and_fail(server):
    server.replies["你好，世界！"] = [("json", "你好 , 世界 !")]
    server.replies["我爱北京"] = [("json", "我 爱 北京")]
    unsegmented = llm(server, on_altered="unsegmented")
    assert unsegmented.segment(["你好，世界！", "我爱北京"]) == [
        ["你好，世界！"],
        ["我", "爱", "北京"],
    ]
    assert unsegmented.options["on_altered"] == "unsegmented"
    with pytest.raises(SegmenterError, match="changed the text: 0 inserted, 0 deleted, 2 subst"):
        llm(server, on_altered="fail").segment(["你好，世界！"])


def test_a_slow_streamed_reply_times_its_first_token(server):
    server.replies["我爱北京"] = [("sleep", 0.2, ("stream", ["我 爱", " 北京"]))]
    seg = llm(server, stream=True)
    assert seg.segment(["我爱北京"]) == [["我", "爱", "北京"]]
    request = seg.diagnostics()[0]["request"]
    assert request["start"] <= request["first_token"] <= request["end"]
    assert (request["input_tokens"], request["output_tokens"]) == (11, 3)  # the usage chunk
    assert server.bodies[0]["stream"] is True


def test_429_then_success_is_retried(server):
    server.replies["我爱北京"] = [("status", 429, {"Retry-After": "0"}), ("json", "我 爱 北京")]
    seg = llm(server)
    assert seg.segment(["我爱北京"]) == [["我", "爱", "北京"]]
    assert server.requests == {"我爱北京": 2}
    assert seg.diagnostics()[0]["request"]["attempts"] == 2


def test_500_is_retried_then_fails_the_batch(server):
    server.replies["我爱北京"] = [("status", 500, {})]
    with pytest.raises(SegmenterError, match=r"no answer after 3 attempts.*HTTP 500"):
        llm(server, retries=2).segment(["我爱北京"])
    assert server.requests == {"我爱北京": 3}


def test_a_client_error_is_not_retried(server):
    server.replies["我爱北京"] = [("status", 401, {})]
    with pytest.raises(SegmenterError, match="HTTP 401"):
        llm(server, retries=3).segment(["我爱北京"])
    assert server.requests == {"我爱北京": 1}


def test_malformed_json_is_retried(server):
    server.replies["我爱北京"] = [("malformed",), ("json", "我 爱 北京")]
    seg = llm(server)
    assert seg.segment(["我爱北京"]) == [["我", "爱", "北京"]]
    assert server.requests == {"我爱北京": 2}
    server.replies["他来了"] = [("malformed",)]
    with pytest.raises(SegmenterError, match="malformed answer"):
        llm(server, retries=1).segment(["他来了"])
    assert server.requests["他来了"] == 2


def test_a_timeout_is_retried_then_fails(server):
    server.replies["我爱北京"] = [("sleep", 1.0, ("json", "我 爱 北京")), ("json", "我 爱 北京")]
    seg = llm(server, timeout=0.2)
    assert seg.segment(["我爱北京"]) == [["我", "爱", "北京"]]
    assert server.requests == {"我爱北京": 2}
    server.replies["他来了"] = [("sleep", 1.0, ("json", "他 来 了"))]
    with pytest.raises(SegmenterError, match=r"no answer within 0\.2 s"):
        llm(server, timeout=0.2, retries=1).segment(["他来了"])
    assert server.requests["他来了"] == 2


def test_concurrent_requests_keep_the_line_order(server):
    lines = [f"第{n}行" for n in range(12)]
    for line in lines:
        server.replies[line] = [("sleep", 0.05, ("json", " ".join(line)))]
    seg = llm(server, concurrency=4)
    assert seg.segment(lines) == [list(line) for line in lines]


def test_a_rerun_reads_the_cache_and_sends_nothing(server):
    server.replies["我爱北京"] = [("json", "我 爱 北京")]
    server.replies["你好，世界！"] = [("json", "你好 , 世界 !")]
    lines = ["我爱北京", "", "你好，世界！"]
    first = llm(server).segment(lines)
    assert server.total == 2
    again = llm(server)
    assert again.segment(lines) == first
    assert server.total == 2  # nothing sent
    diagnostics = again.diagnostics()
    assert diagnostics[1] is None  # the blank line never reaches the adapter
    assert [d["cached"] for d in (diagnostics[0], diagnostics[2])] == [True, True]
    assert diagnostics[0]["request"] is None
    assert diagnostics[2]["substituted"] == 2  # fidelity is recomputed from the kept reply
    llm(server, model="another").segment(["我爱北京"])  # another model: another key
    assert server.total == 3


def test_the_key_is_sent_but_never_kept(server, monkeypatch):
    monkeypatch.setenv("SCRIPTED_KEY", "sk-secret-123")
    server.replies["我爱北京"] = [("json", "我 爱 北京")]
    seg = llm(server, api_key_env="SCRIPTED_KEY")
    seg.segment(["我爱北京"])
    assert server.headers[0]["Authorization"] == "Bearer sk-secret-123"
    kept = json.dumps([seg.options, seg.metadata(), repr(seg)])
    assert "sk-secret" not in kept and "SCRIPTED_KEY" in kept
    monkeypatch.delenv("SCRIPTED_KEY")
    with pytest.raises(SegmenterError, match=r"SCRIPTED_KEY \(api_key_env\) is not set"):
        llm(server, api_key_env="SCRIPTED_KEY")


def test_shots_come_from_the_training_data_seeded(server, tmp_path):
    training = tmp_path / "train.txt"
    training.write_text("我们 是 学生\n他 来 了 北京\n今天 天气 很 好\n", encoding="utf-8")
    server.replies["我爱北京"] = [("json", "我 爱 北京")]
    seg = llm(server, shots=2, shots_corpus=str(training), seed=3)
    seg.segment(["我爱北京"])
    messages = server.bodies[0]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
    shots = {
        (messages[i]["content"].removeprefix(PROMPT_HEAD), messages[i + 1]["content"])
        for i in (0, 2)
    }
    corpus = {
        ("我们是学生", "我们 是 学生"),
        ("他来了北京", "他 来 了 北京"),
        ("今天天气很好", "今天 天气 很 好"),
    }
    assert shots <= corpus and len(shots) == 2
    assert seg.trained_on.description == "2 shots from train.txt (seed 3)"
    assert seg.trained_on.checksum is not None
    same = llm(server, shots=2, shots_corpus=str(training), seed=3)
    assert same.messages("x") == seg.messages("x")


def test_bad_options_are_refused(server):
    with pytest.raises(SegmenterError, match="no base_url"):
        get_segmenter("llm", model="m")
    with pytest.raises(SegmenterError, match="prompt has no"):
        llm(server, prompt="分词")
    with pytest.raises(SegmenterError, match="on_altered"):
        llm(server, on_altered="ignore")
    with pytest.raises(SegmenterError, match="shots_corpus"):
        llm(server, shots=2)


def test_retry_after_is_honoured_and_backoff_doubles():
    assert retry_delay(0, 1.0) == 1.0
    assert retry_delay(2, 1.0) == 4.0
    assert retry_delay(10, 1.0) == 60.0  # capped
    assert retry_delay(0, 1.0, "12") == 12.0


def test_prices_give_a_cost_per_request(server):
    # 20 input and 7 output tokens at 2 and 10 per million: (40 + 70) / 1e6.
    server.replies["我爱北京"] = [("json", "我 爱 北京")]
    seg = llm(server, price_in=2.0, price_out=10.0)
    seg.segment(["我爱北京"])
    assert seg.diagnostics()[0]["cost"] == pytest.approx(110 / 1e6)


def test_segment_writes_fidelity_lines_and_a_summary(server, tmp_path):
    from click.testing import CliRunner

    from cws_bench.cli import cli

    server.replies["我爱北京"] = [("json", "我 爱 北京")]
    server.replies["你好，世界！"] = [("json", "你好 , 世界 !")]
    source = tmp_path / "in.txt"
    source.write_text("我爱北京\n\n你好，世界！\n", encoding="utf-8")
    out, report = tmp_path / "out.txt", tmp_path / "fidelity.jsonl"
    result = CliRunner().invoke(
        cli,
        [
            "segment",
            "-s",
            "llm",
            str(source),
            "-o",
            str(out),
            "--fidelity",
            str(report),
            "-O",
            f"base_url={server.url}",
            "-O",
            "model=scripted",
            "-O",
            "stream=false",
        ],
    )
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == "我 爱 北京\n\n你好 ， 世界 ！\n"
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert [(r["line"], r["altered"], r["substituted"]) for r in records] == [
        (1, False, 0),
        (2, False, 0),
        (3, True, 2),
    ]
    assert "1 of 3 lines altered" in result.stderr


def test_the_request_log_reads_as_throughput_input(server, tmp_path):
    from click.testing import CliRunner

    from cws_bench.cli import cli

    for line in ("我爱北京", "他来了"):
        server.replies[line] = [("json", " ".join(line))]
    source = tmp_path / "in.txt"
    source.write_text("我爱北京\n他来了\n", encoding="utf-8")
    log = tmp_path / "requests.jsonl"
    runner = CliRunner()
    result = runner.invoke(
        cli,
        ["segment", "-s", "llm", str(source), "-o", str(tmp_path / "out.txt"),
         "--requests", str(log),
         "-O", f"base_url={server.url}", "-O", "model=scripted", "-O", "stream=false"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert len(log.read_text(encoding="utf-8").splitlines()) == 2
    # each scripted answer reports 20 prompt and 7 completion tokens
    shown = runner.invoke(cli, ["metrics", "throughput", str(log), "--format", "json"])
    assert shown.exit_code == 0, shown.output
    figures = json.loads(shown.stdout)
    assert (figures["requests"], figures["input_tokens"], figures["output_tokens"]) == (2, 40, 14)
    again = runner.invoke(
        cli,
        ["segment", "-s", "llm", str(source), "-o", str(tmp_path / "out.txt"),
         "--requests", str(log),
         "-O", f"base_url={server.url}", "-O", "model=scripted", "-O", "stream=false"],
    )  # fmt: skip
    assert again.exit_code == 0 and log.read_text(encoding="utf-8") == ""  # all from the cache


@pytest.fixture
def tiny_causal_lm(tmp_path) -> Path:
    """A one-layer GPT-2 with random weights and a tokenizer of single characters."""
    pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    characters = sorted(
        set(DEFAULT_PROMPT.replace("{text}", "") + "我爱北京天安门你好世界！他来了们今天去公园 ")
    )
    vocab = {token: i for i, token in enumerate(["[PAD]", "[UNK]", "[EOS]", *characters])}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    tokenizer.decoder = decoders.Fuse()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, pad_token="[PAD]", unk_token="[UNK]", eos_token="[EOS]"
    )
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(vocab),
        n_positions=256,
        n_embd=16,
        n_layer=1,
        n_head=2,
        eos_token_id=2,
        bos_token_id=2,
        pad_token_id=0,
    )
    folder = tmp_path / "tiny-lm"
    GPT2LMHeadModel(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


def test_the_local_backend_stays_lossless_on_a_random_model(tiny_causal_lm, tmp_path, monkeypatch):
    monkeypatch.setenv("CWS_BENCH_LLM_CACHE", str(tmp_path / "llm-cache"))
    lines = ["我爱北京天安门", "你好，世界！", "他 来了", "我们今天去公园"]
    seg = get_segmenter(
        "llm",
        backend="transformers",
        model=str(tiny_causal_lm),
        device="cpu",
        batch_size=3,
        max_tokens=24,
    )
    output = seg.segment(lines)  # segment() raises unless each line's words join back to it
    assert len(output) == 4
    assert output[2][0] == "他"  # the line's own space is always a boundary
    diagnostics = seg.diagnostics()
    for record in diagnostics:
        assert record["request"]["input_tokens"] > 0
        assert 0 <= record["request"]["output_tokens"] <= 24
        assert record["cached"] is False
    assert seg.metadata()["model"]["checksum"]
    again = get_segmenter(
        "llm",
        backend="transformers",
        model=str(tiny_causal_lm),
        device="cpu",
        batch_size=3,
        max_tokens=24,
    )
    assert again.segment(lines) == output  # greedy, and from the cache
    assert all(record["cached"] for record in again.diagnostics())


def test_a_local_model_s_missing_folder_is_its_model_problem(tmp_path):
    # the one model check: the segmenter, the bake-off's validation (an optional row is
    # skipped with a note) and the listing ask the same question, loading nothing
    from cws_bench.run.config import load_config
    from cws_bench.run.validate import validate_config
    from cws_bench.segmenters.llm import LLMSegmenter

    gone = tmp_path / "gone"
    problem = (
        f"model folder {gone}: no such folder",
        "the transformers backend loads a local folder (save_pretrained's layout)",
    )
    assert LLMSegmenter.model_problem({"backend": "transformers", "model": str(gone)}) == problem
    assert LLMSegmenter.model_problem({"model": str(gone), "base_url": "http://h/v1"}) is None
    with pytest.raises(SegmenterError, match="no such folder") as caught:
        get_segmenter("llm", backend="transformers", model=str(gone))
    assert (caught.value.message, caught.value.hint) == (f"segmenter llm: {problem[0]}", problem[1])
    config = tmp_path / "local.toml"
    config.write_text(
        '[[corpora]]\nname = "sample"\n[[segmenters]]\nname = "fmm"\n'
        'options = { words = ["我们"] }\n[[segmenters]]\nname = "llm"\noptional = true\n'
        f'options = {{ backend = "transformers", model = "{gone}" }}\n',
        encoding="utf-8",
    )
    notes: list[str] = []
    assert [s.name for s in validate_config(load_config(config), notes=notes).segmenters] == ["fmm"]
    assert notes == [f"skipped llm: {problem[0]} ({problem[1]})"]


def test_a_bakeoff_keeps_the_fidelity_and_requests_of_an_llm_row(server, tmp_path, monkeypatch):
    from cws_bench.corpora import get_corpus
    from cws_bench.run.bakeoff import run_bakeoff
    from cws_bench.run.config import load_config

    gold = list(get_corpus("sample").sentences("test"))
    for words in gold:  # the gold words, except one line answered in half-width
        server.replies["".join(words)] = [("json", " ".join(words))]
    changed = next(words for words in gold if "，" in "".join(words))
    line = "".join(changed)
    server.replies[line] = [("json", " ".join(changed).replace("，", ","))]
    commas = line.count("，")
    monkeypatch.setenv("SCRIPTED_URL", server.url)
    config = tmp_path / "llm.toml"
    config.write_text(
        'name = "llm-test"\nseed = 1\nresamples = 50\n'
        '[[corpora]]\nname = "sample"\nsplit = "test"\n'
        '[[segmenters]]\nname = "llm"\noptional = true\n'
        'options = { base_url = "{env:SCRIPTED_URL}", model = "scripted", stream = false, '
        "price_in = 1.0, price_out = 2.0 }\n"
        '[[segmenters]]\nname = "llm"\nlabel = "unset"\noptional = true\n'
        'options = { base_url = "{env:NO_SUCH_LLM_URL}", model = "m" }\n',
        encoding="utf-8",
    )
    # small shards: the pair's diagnostics come back shard by shard and are joined in order
    result = run_bakeoff(load_config(config), output_dir=tmp_path / "out", jobs=1, shard_chars=300)
    assert result.settings["shards"] > 2
    assert any(
        "skipped unset: NO_SUCH_LLM_URL not set" in note for note in result.settings["notes"]
    )
    (pair,) = result.pairs
    # Every line answered with its gold words: F is 1 although one line was altered,
    # since its commas were substituted one for one and repaired onto the original.
    assert pair.f1 == 1.0
    fidelity = pair.diagnostics["fidelity"]
    assert (fidelity["lines"], fidelity["altered"], fidelity["substituted"]) == (
        len(gold),
        1,
        commas,
    )
    assert fidelity["worst"][0]["text"] == line[:60]
    requests = pair.diagnostics["requests"]
    assert (requests["sent"], requests["cached"]) == (len(gold), 0)
    assert requests["metrics"]["requests"] == len(gold)
    assert requests["metrics"]["input_tokens"] == 20 * len(gold)  # the scripted usage
    # 20 input and 7 output tokens a request at 1 and 2 per million tokens
    characters = sum(len(word) for words in gold for word in words)
    assert pair.diagnostics["cost"]["per_million_characters"] == pytest.approx(
        len(gold) * (20 * 1.0 + 7 * 2.0) / characters
    )
    assert any(w.startswith("text fidelity: 1 of") for w in pair.warnings)
    board = (tmp_path / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "Prompted LLMs beside the other rows" in board
    assert f"| llm | open | 100.00 | 1 of {len(gold)} | 0 / 0 / {commas} | 0 / 0 |" in board
    from cws_bench.reports.text import render_leaderboard

    assert "LLM rows beside the others:" in render_leaderboard(result)
    from cws_bench.reports.html import render_html

    page = render_html(result)
    assert "Prompted LLMs beside the other rows" in page
    table = page.split('<table class="llm">')[1].split("</table>")[0]
    assert (
        f'<td>open</td><td class="num">100.00</td><td class="num">1 of {len(gold)}</td>'
        f'<td class="num">0 / 0 / {commas}</td><td class="num">0 / 0</td>'
    ) in table
    sent = server.total
    kept = run_bakeoff(load_config(config), output_dir=tmp_path / "out", jobs=1, shard_chars=300)
    assert kept.pairs[0].cached and kept.pairs[0].diagnostics == pair.diagnostics  # run cache
    again = run_bakeoff(load_config(config), output_dir=tmp_path / "out2", jobs=1)
    assert server.total == sent  # the reply cache: nothing sent again
    assert again.pairs[0].diagnostics["requests"]["cached"] == len(gold)
    assert again.pairs[0].f1 == 1.0


@pytest.mark.parametrize("seed", range(40))
def test_any_reply_gives_the_line_back_with_consistent_counts(seed):
    # Garbage replies, as a random model writes them: characters of the line and
    # others, spaces anywhere, repeats. Whatever the reply, the words join back to the
    # line without its whitespace; the counts add up (every character of the line is
    # kept, substituted or deleted; the reply's length is the line's plus the inserted
    # minus the deleted); and a line is altered exactly when a count is above zero.
    import random

    from cws_bench.segmenters.llm_align import align_reply, extract_answer

    rng = random.Random(seed)
    alphabet = "我爱北京天安门你好，世界！X"
    line = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))
    if rng.random() < 0.3:
        line = line[:5] + " " + line[5:]
    reply = "".join(rng.choice(alphabet + "  ") for _ in range(rng.randint(0, 40)))
    for on_altered in ("repair", "unsegmented"):
        words, record = align_reply(line, reply, on_altered=on_altered)
        text = "".join(line.split())
        assert "".join(words) == text
        assert all(words)
        pred = "".join(extract_answer(reply, text).split())
        if record.empty:
            assert pred == "" and record.deleted == len(text)
            continue
        assert len(pred) == len(text) + record.inserted - record.deleted
        assert record.altered == (record.inserted + record.deleted + record.substituted > 0)
        if (record.altered and on_altered == "unsegmented") or record.refused:
            assert len(words) == len(line.split())  # one word per whitespace-separated run


def test_the_bundled_llm_configuration_reads_its_endpoint_from_the_environment(monkeypatch):
    from cws_bench.run.config import load_config

    config = load_config("llm")
    rows = [spec for spec in config.segmenters if spec.name == "llm"]
    assert len(rows) == 2 and all(spec.optional for spec in rows)
    monkeypatch.delenv("CWS_BENCH_LLM_BASE_URL", raising=False)
    monkeypatch.delenv("CWS_BENCH_LLM_MODEL", raising=False)
    assert all(
        spec.unset_variables() == ["CWS_BENCH_LLM_BASE_URL", "CWS_BENCH_LLM_MODEL"] for spec in rows
    )
    monkeypatch.setenv("CWS_BENCH_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("CWS_BENCH_LLM_MODEL", "some-model")
    pku = next(corpus for corpus in config.corpora if corpus.name == "sighan2005-pku")
    shots = next(spec for spec in rows if spec.options.get("shots"))
    assert shots.unset_variables() == []
    options = shots.options_for(pku)
    assert (options["base_url"], options["model"]) == ("http://127.0.0.1:9/v1", "some-model")
    assert options["shots_corpus"] == "sighan2005-pku"  # the scored corpus' own training data


# -- faults of a hostile network or server (issue 40) ---------------------------------------


def _cache_files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "llm-cache").glob("*/*.json"))


@pytest.mark.parametrize("cut", ["cut_stream", "cut_chunked"])
def test_a_stream_cut_before_its_end_is_retried_never_scored_or_cached(server, tmp_path, cut):
    # A stream that stops before data: [DONE] (and with no finish_reason), or a chunked
    # body that stops before its last chunk, is a lost connection: the second attempt's
    # complete stream is the answer.
    server.replies["我爱北京"] = [(cut, ["我 爱"]), ("stream", ["我 爱", " 北京"])]
    seg = llm(server, stream=True)
    assert seg.segment(["我爱北京"]) == [["我", "爱", "北京"]]
    assert server.requests == {"我爱北京": 2}
    # Cut every time: a clear error, and nothing kept for a later run to serve.
    server.replies["他来了"] = [(cut, ["他 来"])]
    with pytest.raises(SegmenterError, match=r"no answer after 2 attempts.*(ended before|cut)"):
        llm(server, stream=True, retries=1).segment(["他来了"])
    assert len(_cache_files(tmp_path)) == 1  # 我爱北京's complete answer only
    with pytest.raises(SegmenterError):
        llm(server, stream=True, retries=0).segment(["他来了"])
    assert server.requests["他来了"] == 3  # asked again: nothing was cached


def test_a_finish_reason_ends_a_stream_without_done():
    # Some servers close after the chunk with a finish_reason and send no [DONE]: that
    # stream is complete; the same stream without its last chunk is not.
    from cws_bench.segmenters.llm_backends import _Retryable, _StreamReader

    events = (
        'data: {"choices": [{"delta": {"content": "我 爱"}}]}\n\n'
        'data: {"choices": [{"delta": {"content": " 北京"}, "finish_reason": "stop"}]}\n\n'
    )
    reader = _StreamReader()
    reader.feed(events.encode())
    assert reader.reply(0.0, 1.0).text == "我 爱 北京"
    cut = _StreamReader()
    cut.feed(events.split("\n\n")[0].encode() + b"\n\n")
    with pytest.raises(_Retryable, match="ended before its end"):
        cut.reply(0.0, 1.0)


def test_a_stream_with_its_finish_reason_is_complete_though_the_server_stays(server):
    server.replies["我爱北京"] = [("finish_then_hold", ["我 爱", " 北京"])]
    seg = llm(server, stream=True, timeout=0.5, retries=0)
    assert seg.segment(["我爱北京"]) == [["我", "爱", "北京"]]
    assert server.requests == {"我爱北京": 1}


def test_a_body_cut_short_is_retried_and_the_hint_does_not_blame_the_data(server, tmp_path):
    server.replies["我爱北京"] = [("short_body", "我 爱 北京"), ("json", "我 爱 北京")]
    seg = llm(server)
    assert seg.segment(["我爱北京"]) == [["我", "爱", "北京"]]
    assert server.requests == {"我爱北京": 2}
    from click.testing import CliRunner

    from cws_bench.cli import cli

    server.replies["他来了"] = [("short_body", "他 来 了")]
    source = tmp_path / "in.txt"
    source.write_text("他来了\n", encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        ["segment", "-s", "llm", str(source), "-o", str(tmp_path / "out.txt"),
         "-O", f"base_url={server.url}", "-O", "model=scripted", "-O", "stream=false",
         "-O", "retries=1", "-O", "backoff=0.01"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "cut short" in result.stderr and "Traceback" not in result.stderr
    assert "not the data" in result.stderr
    assert "input" not in result.stderr.lower().replace("input_tokens", "")
    assert server.requests["他来了"] == 2


def test_an_oversized_reply_is_not_read_past_its_bound_nor_cached(server, tmp_path):
    # 我爱北京: max_tokens 3*4+32 = 44, so the bound is 65,536 + 44*1,024 + 4*16 = 110,656
    # bytes. The server means to send 50 MB; the reader stops at the bound, the line
    # counts as answered with nothing (empty, unsegmented) and is marked oversized.
    from cws_bench.segmenters.llm_backends import reply_limit

    assert reply_limit(44, "我爱北京") == 110_656
    server.replies["我爱北京"] = [("huge", 50_000_000)]
    seg = llm(server)
    assert seg.segment(["我爱北京"]) == [["我爱北京"]]
    record = seg.diagnostics()[0]
    assert record["oversized"] is True and record["empty"] is True
    assert record["output"] == "unsegmented"
    from cws_bench.segmenters.diagnostics import fidelity_line

    assert fidelity_line(1, record)["oversized"] is True  # the --fidelity file's record
    from cws_bench.segmenters.diagnostics import summarize, summary_note

    assert summary_note(summarize([record])) == (
        "1 of 1 line altered (0 inserted, 4 deleted, 0 substituted characters; "
        "0 refused, 1 empty, of which 1 oversized, not read)"
    )
    assert server.sent < 50_000_000  # the client left long before the end
    assert _cache_files(tmp_path) == []
    llm(server).segment(["我爱北京"])
    assert server.requests == {"我爱北京": 2}  # nothing was cached
    with pytest.raises(SegmenterError, match="passed its size bound"):
        llm(server, on_altered="fail").segment(["我爱北京"])


def test_a_key_with_a_trailing_newline_is_stripped(server, monkeypatch):
    monkeypatch.setenv("SCRIPTED_KEY", "sk-secret-123\n")
    server.replies["我爱北京"] = [("json", "我 爱 北京")]
    seg = llm(server, api_key_env="SCRIPTED_KEY")
    assert seg.segment(["我爱北京"]) == [["我", "爱", "北京"]]
    assert server.headers[0]["Authorization"] == "Bearer sk-secret-123"


@pytest.mark.parametrize("key", ["sk-sec ret-123", "sk-secret\r\nX-Evil: 1", "sk-sëcret", "  "])
def test_a_key_that_is_no_header_value_is_refused_unshown(server, monkeypatch, key):
    monkeypatch.setenv("SCRIPTED_KEY", key)
    with pytest.raises(SegmenterError, match="SCRIPTED_KEY") as caught:
        llm(server, api_key_env="SCRIPTED_KEY")
    if key.strip():
        assert key.strip() not in str(caught.value) and "sec" not in str(caught.value)
    assert server.total == 0


@pytest.mark.parametrize(("code", "retries"), [(401, 0), (500, 1)])
def test_an_error_message_never_holds_the_key(server, monkeypatch, code, retries):
    # The server's error body quotes the request's headers, Authorization included.
    monkeypatch.setenv("SCRIPTED_KEY", "sk-secret-123")
    server.replies["我爱北京"] = [("echo", code)]
    with pytest.raises(SegmenterError, match=f"HTTP {code}") as caught:
        llm(server, api_key_env="SCRIPTED_KEY", retries=retries).segment(["我爱北京"])
    text = str(caught.value) + str(caught.value.hint)
    assert "sk-secret" not in text and "[redacted]" in text


@pytest.mark.parametrize("where", ["trickle", "trickle_head"])
def test_a_trickling_server_meets_the_deadline(server, where):
    # A byte every 0.25 s, of the body or of the status line and headers: never 2 s of
    # silence (timeout), but no answer within 1 s.
    server.replies["我爱北京"] = [(where, 0.25)]
    with pytest.raises(SegmenterError, match=r"deadline of 1 s"):
        llm(server, timeout=2.0, deadline=1.0, retries=0).segment(["我爱北京"])


def test_a_cache_entry_under_another_key_is_not_served(server, tmp_path):
    server.replies["我爱北京"] = [("json", "我 爱 北京")]
    server.replies["他来了"] = [("json", "他 来 了")]
    llm(server).segment(["我爱北京", "他来了"])
    files = {json.loads(f.read_text(encoding="utf-8"))["text"]: f for f in _cache_files(tmp_path)}
    assert set(files) == {"我 爱 北京", "他 来 了"}
    # 我爱北京's entry copied over 他来了's: its words are not 他来了's answer
    files["他 来 了"].write_bytes(files["我 爱 北京"].read_bytes())
    seg = llm(server)
    assert seg.segment(["我爱北京", "他来了"]) == [["我", "爱", "北京"], ["他", "来", "了"]]
    assert server.requests == {"我爱北京": 1, "他来了": 2}  # re-requested, not served
    assert [d["cached"] for d in seg.diagnostics()] == [True, False]
    kept = json.loads(files["他 来 了"].read_text(encoding="utf-8"))
    assert kept["text"] == "他 来 了"  # the entry is replaced by the right answer
    assert kept["request"]["messages"][-1]["content"].endswith("他来了")
    assert kept["request"]["model"] == "scripted"


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("max_tokens", 0, "max_tokens must be a whole number of at least 1, not 0"),
        ("max_tokens", 2.5, r"max_tokens must be a whole number of at least 1, not 2\.5"),
        ("stream", "maybe", "stream must be true or false, not 'maybe'"),
        ("cache", "always", "cache must be true or false, not 'always'"),
        ("concurrency", "four", "concurrency must be a whole number of at least 1, not 'four'"),
        ("timeout", 0, "timeout must be a number more than 0, not 0"),
        ("deadline", -1, "deadline must be a number more than 0, not -1"),
        ("price_in", -1.0, r"price_in must be a number at least 0, not -1\.0"),
        ("backend", "openia", "backend must be one of openai, transformers, not 'openia'"),
        ("dtype", "half", "dtype must be one of float32, float16, bfloat16, not 'half'"),
    ],
)
def test_option_types_and_ranges_are_checked(server, option, value, message):
    with pytest.raises(SegmenterError, match=message):
        llm(server, **{option: value})


def test_options_given_as_text_are_converted_by_their_type(server):
    # An {env:NAME} placeholder in a bake-off configuration gives text: "200", "false",
    # "yes", "null" (none, for an optional number).
    server.replies["我爱北京"] = [("json", "我 爱 北京")]
    seg = llm(server, max_tokens="200", stream="false", concurrency="2", cache="yes")
    assert seg.segment(["我爱北京"]) == [["我", "爱", "北京"]]
    assert server.bodies[0]["max_tokens"] == 200 and "stream" not in server.bodies[0]
    assert seg.options["max_tokens"] == 200 and seg.cache is not None
    unbounded = llm(server, max_tokens="null", price_in="null")
    assert unbounded.token_bound("我爱北京") == 3 * 4 + 32 and "max_tokens" not in unbounded.options


def test_a_placeholder_is_checked_as_the_value_it_names(tmp_path, monkeypatch):
    # validation checks a row's options as the run will build it: max_tokens is the
    # number LLM_TOKENS names; an unset variable is left to the run (refused or skipped)
    from cws_bench.run.config import load_config
    from cws_bench.run.problems import ConfigurationError
    from cws_bench.run.validate import validate_config

    config = tmp_path / "llm.toml"
    config.write_text(
        '[[corpora]]\nname = "sample"\n[[segmenters]]\nname = "llm"\n'
        'options = { base_url = "{env:LLM_URL}", model = "m", max_tokens = "{env:LLM_TOKENS}" }\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("LLM_TOKENS", "30")
    assert validate_config(load_config(config)).segmenters[0].name == "llm"
    monkeypatch.setenv("LLM_TOKENS", "0")
    with pytest.raises(
        ConfigurationError, match="max_tokens must be a whole number of at least 1, not 0"
    ):
        validate_config(load_config(config))
    monkeypatch.delenv("LLM_TOKENS")
    assert validate_config(load_config(config)).segmenters[0].name == "llm"


def test_a_bad_option_on_the_command_line_is_one_clear_message(server, tmp_path):
    from click.testing import CliRunner

    from cws_bench.cli import cli

    source = tmp_path / "in.txt"
    source.write_text("他来了\n", encoding="utf-8")
    for option, shown in (
        ("stream=maybe", "stream must be true or false"),
        ("max_tokens=0", "max_tokens must be a whole number of at least 1"),
    ):
        result = CliRunner().invoke(
            cli,
            ["segment", "-s", "llm", str(source), "-o", str(tmp_path / "out.txt"),
             "-O", f"base_url={server.url}", "-O", "model=scripted", "-O", option],
        )  # fmt: skip
        assert result.exit_code == 2, result.output
        assert shown in result.stderr and "Traceback" not in result.stderr
    assert server.total == 0


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_refused_connection_is_tried_twice_not_five_times(tmp_path, monkeypatch):
    monkeypatch.setenv("CWS_BENCH_LLM_CACHE", str(tmp_path / "llm-cache"))
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    seg = get_segmenter("llm", base_url=url, model="m", retries=4, backoff=1.0, stream=False)
    with pytest.raises(SegmenterError, match=r"connection refused \(2 attempts\)") as caught:
        seg.segment(["我爱北京"])
    assert "start the server" in str(caught.value.hint)
    from click.testing import CliRunner

    from cws_bench.cli import cli

    source = tmp_path / "in.txt"
    source.write_text("他来了\n我爱北京\n", encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        ["segment", "-s", "llm", str(source), "-o", str(tmp_path / "out.txt"),
         "-O", f"base_url={url}", "-O", "model=m", "-O", "concurrency=2"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "connection refused" in result.stderr and "Traceback" not in result.stderr


def test_ctrl_c_with_requests_in_flight_ends_at_once(server, tmp_path):
    # Four lines held by the server for up to 60 s, four requests in flight: SIGINT ends
    # the run with 130 long before the server would answer (and before the 20 s the
    # stop watchdog gives a run that does not stop by itself).
    import os
    import signal
    import subprocess
    import sys

    sys.path.insert(0, str(Path(__file__).parent.parent))
    from processes import wait_for

    lines = ["我爱北京", "他来了", "你好", "天安门"]
    for line in lines:
        server.replies[line] = [("hold",)]
    source = tmp_path / "in.txt"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from cws_bench.cli import main; main()",
         "segment", "-s", "llm", str(source), "-o", str(tmp_path / "out.txt"),
         "-O", f"base_url={server.url}", "-O", "model=scripted", "-O", "stream=false",
         "-O", "concurrency=4"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True,
    )  # fmt: skip
    try:
        wait_for(lambda: server.held == 4, "four requests in flight")
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr


def test_rows_from_the_reply_cache_show_the_speed_of_the_requests_sent(
    server, tmp_path, monkeypatch
):
    # issue 39: a rerun read from the reply cache showed the cache's speed as the model's.
    from cws_bench.corpora import get_corpus
    from cws_bench.reports.llm import llm_rows
    from cws_bench.reports.tables import build_boards
    from cws_bench.run.bakeoff import run_bakeoff
    from cws_bench.run.config import load_config

    gold = list(get_corpus("sample").sentences("test"))
    for words in gold:
        server.replies["".join(words)] = [("json", " ".join(words))]
    monkeypatch.setenv("SCRIPTED_URL", server.url)
    config = tmp_path / "llm.toml"
    config.write_text(
        'name = "llm-speed"\nseed = 1\nresamples = 20\n'
        '[[corpora]]\nname = "sample"\nsplit = "test"\n'
        '[[segmenters]]\nname = "llm"\n'
        'options = { base_url = "{env:SCRIPTED_URL}", model = "scripted", stream = false }\n',
        encoding="utf-8",
    )
    first = run_bakeoff(load_config(config), output_dir=tmp_path / "a", jobs=1)
    assert first.pairs[0].timing["chars_per_s"] > 0  # every request sent
    cached = run_bakeoff(load_config(config), output_dir=tmp_path / "b", jobs=1)
    pair = cached.pairs[0]
    assert pair.diagnostics["requests"]["sent"] == 0
    assert pair.timing["chars_per_s"] is None and pair.timing["words_per_s"] is None
    (board,) = build_boards(cached)
    assert llm_rows(board)[0][6] == "—"  # the LLM table's chars/s: none
    # One line's reply dropped from the cache: the speed is that line's characters
    # over the time segmenting took, not all the lines'.
    line = "".join(gold[0])
    for path in (tmp_path / "llm-cache").glob("*/*.json"):
        if json.loads(path.read_text(encoding="utf-8"))["text"] == " ".join(gold[0]):
            path.unlink()
    partly = run_bakeoff(load_config(config), output_dir=tmp_path / "c", jobs=1).pairs[0]
    assert partly.diagnostics["requests"]["sent"] == 1
    timing = partly.timing
    assert timing["chars_per_s"] == pytest.approx(len(line) / timing["segment_s"])
    assert timing["words_per_s"] == pytest.approx(len(gold[0]) / timing["segment_s"])


# -- the reply cache's keys stay those of earlier versions (issue 41) -----------------------


def _keep(folder: Path, key: str, material: dict, text: str) -> None:
    """A cache file as cws-bench wrote it before the backends were split (format 1)."""
    path = folder / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"request": material, "text": text, "input_tokens": 7, "output_tokens": 3}
    path.write_text(json.dumps(entry, ensure_ascii=False), encoding="utf-8")


def test_a_reply_cached_by_earlier_versions_is_still_found(tmp_path, monkeypatch):
    # The keys were computed on main before the split (10cdb82) for these very requests;
    # port 9 has no server: a key that moved would mean a refused connection.
    monkeypatch.setenv("CWS_BENCH_LLM_CACHE", str(tmp_path / "llm-cache"))
    endpoint = {"format": 1, "backend": "openai", "base_url": "http://127.0.0.1:9/v1"}
    head = (
        "请对下列文本进行分词，词之间以空格隔开。不要增加、删除或改动任何字符，只输出分词结果。\n"
    )
    system = {"role": "system", "content": "分词器"}
    _keep(
        tmp_path / "llm-cache",
        "3d0f485bf38c6881cfcca85aab172f15",
        {
            **endpoint,
            "model": "pinned-model",
            "messages": [system, {"role": "user", "content": head + "我爱北京"}],
            "temperature": 0,
            "max_tokens": 50,
        },
        "我 爱 北京",
    )
    _keep(
        tmp_path / "llm-cache",
        "da606e9253710d4fd68225a6a5826d41",
        {
            **endpoint,
            "model": "pinned-model",
            "messages": [{"role": "user", "content": head + "他来了"}],
            "temperature": 0,
            "max_tokens": 41,  # 3 per character + 32
        },
        "他 来 了",
    )
    url = "http://127.0.0.1:9/v1/"  # the trailing slash is not part of the key
    seg = get_segmenter("llm", base_url=url, model="pinned-model", system="分词器", max_tokens=50)
    assert seg.segment(["我爱北京"]) == [["我", "爱", "北京"]]
    seg = get_segmenter("llm", base_url=url, model="pinned-model", retries=0, seed="3")
    assert seg.segment(["他来了"]) == [["他", "来", "了"]]
    assert list(seg.options.items()) == [  # the run cache's key: as before, in this order
        ("backend", "openai"),
        ("base_url", url),
        ("model", "pinned-model"),
        ("prompt", DEFAULT_PROMPT),
        ("shots", 0),
        ("seed", 3),
        ("on_altered", "repair"),
    ]
    assert seg.diagnostics()[0]["cached"] is True


def test_a_local_model_s_reply_is_cached_under_its_folder_s_content(
    tiny_causal_lm, tmp_path, monkeypatch
):
    # What a local model's request is keyed by, written out by hand: the folder, its
    # checksum, the device, dtype and versions, beside the messages and the bound.
    import os

    from cws_bench.segmenters.llm import ResponseCache
    from cws_bench.segmenters.neural import folder_checksum
    from cws_bench.system.installed import installed_versions

    monkeypatch.setenv("CWS_BENCH_LLM_CACHE", str(tmp_path / "llm-cache"))
    material = {
        "format": 1,
        "backend": "transformers",
        "model": os.path.abspath(tiny_causal_lm),
        "checksum": folder_checksum(tiny_causal_lm),
        "device": "cpu",
        "gpu": None,
        "dtype": "float32",
        "versions": installed_versions("transformers", "torch", "tokenizers"),
        "messages": [{"role": "user", "content": DEFAULT_PROMPT.replace("{text}", "我爱北京")}],
        "temperature": 0,
        "max_tokens": 24,
    }
    _keep(tmp_path / "llm-cache", ResponseCache.key(material), material, "我爱 北京")
    seg = get_segmenter(
        "llm", backend="transformers", model=str(tiny_causal_lm), device="cpu", max_tokens=24
    )
    assert seg.segment(["我爱北京"]) == [["我爱", "北京"]]  # not what the random model says
    assert seg.diagnostics()[0]["cached"] is True
    assert seg.metadata()["model"] == {k: material[k] for k in list(material)[1:8]}
    assert list(seg.options.items()) == [  # the run cache's key: as before, in this order
        ("backend", "transformers"),
        ("model", str(tiny_causal_lm)),
        ("prompt", DEFAULT_PROMPT),
        ("shots", 0),
        ("seed", 0),
        ("max_tokens", 24),
        ("on_altered", "repair"),
        ("device", "cpu"),
        ("dtype", "float32"),
    ]


def test_the_key_is_in_no_cache_file_nor_the_backend_s_repr(server, tmp_path, monkeypatch):
    # The backend holds the key (it sends it); what is written or shown never has it.
    monkeypatch.setenv("SCRIPTED_KEY", "sk-secret-123")
    server.replies["我爱北京"] = [("json", "我 爱 北京")]
    seg = llm(server, api_key_env="SCRIPTED_KEY")
    seg.segment(["我爱北京"])
    (entry,) = _cache_files(tmp_path)
    assert "sk-secret" not in entry.read_text(encoding="utf-8")
    assert "sk-secret" not in repr(seg.backend) and "sk-secret" not in str(vars(seg))
    assert server.headers[0]["Authorization"] == "Bearer sk-secret-123"
