"""The neural adapter tests: skipped without their libraries, failed instead in CI.

``make neural`` installs the neural extras (torch CPU, transformers, spaCy,
LTP, HanLP, stanza, jiagu, jieba-fast) and ``.ci/run`` runs the suite with
``CWS_BENCH_REQUIRE_NEURAL=1``: then a test here that would skip (a library
missing) fails, so CI cannot pass without running them. No model hub is
reached: HF_HUB_OFFLINE is set for every test here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REQUIRED = os.environ.get("CWS_BENCH_REQUIRE_NEURAL") == "1"

# Before transformers and huggingface_hub are imported: they read these once.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"


def _fail_skips(report: pytest.CollectReport | pytest.TestReport) -> None:
    if not (REQUIRED and report.skipped) or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if "not installed" in reason:  # only a missing library: absent corpora still skip
        report.outcome = "failed"
        report.longrepr = f"CWS_BENCH_REQUIRE_NEURAL=1, yet this skipped: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    _fail_skips(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):  # type: ignore[no-untyped-def]
    outcome = yield
    _fail_skips(outcome.get_result())


# -- tiny models built once per test session ----------------------------------

#: Segmented sentences the tiny HanLP and stanza models learn from (hand-segmented, PKU style).
TINY_TRAINING = [
    "我们 是 中国 人 。",
    "他 说 了 ， 我们 在 北京 大学 。",
    "北京 大学 的 学生 在 研究 生命 起源 。",
    "我们 研究 中国 的 大学 。",
    "他 是 学生 ， 我们 也 是 学生 。",
] * 4


@pytest.fixture(scope="session")
def hanlp_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A HanLP TransformerTaggingTokenizer trained here on a one-layer BERT (random start).

    The BERT's vocabulary is the training characters; its 34 positions and
    ``max_seq_len = 32`` make lines of more than 32 characters long lines.
    transformers 5 removed the ``AdamW`` HanLP 2.1.5 builds its optimizer
    with: torch's AdamW stands in while the model trains.
    """
    pytest.importorskip("hanlp", reason="hanlp is not installed (pip install 'cws-bench[hanlp]')")
    import torch
    import transformers
    import transformers.optimization
    from hanlp.components.tokenizers.transformer import TransformerTaggingTokenizer

    root = tmp_path_factory.mktemp("hanlp")
    train = root / "train.txt"
    train.write_text("\n".join(TINY_TRAINING) + "\n", encoding="utf-8")
    characters = sorted(set("".join(TINY_TRAINING).replace(" ", "")))
    bert = root / "bert"
    bert.mkdir()
    vocabulary = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *characters]
    (bert / "vocab.txt").write_text("\n".join(vocabulary) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizer(vocab={t: i for i, t in enumerate(vocabulary)})
    assert tokenizer.encode("我", add_special_tokens=False) == [vocabulary.index("我")]
    tokenizer.save_pretrained(str(bert))
    config = transformers.BertConfig(
        vocab_size=len(vocabulary),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=34,
    )
    torch.manual_seed(0)
    transformers.BertModel(config).save_pretrained(str(bert))

    class AdamW(torch.optim.AdamW):
        def __init__(self, params, no_deprecation_warning=None, **options):  # type: ignore[no-untyped-def]
            super().__init__(params, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(transformers.optimization, "AdamW", AdamW, raising=False)
        TransformerTaggingTokenizer().fit(
            str(train),
            str(train),
            str(root / "model"),
            transformer=str(bert),
            epochs=3,
            lr=1e-2,
            max_seq_len=32,
            batch_size=8,
            eval_trn=False,
            devices=-1,
        )
    return root / "model"


@pytest.fixture(scope="session")
def stanza_model(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A stanza tokenizer trained here (20 steps), and a resources folder naming it.

    Returns ``(resources folder, model file)``. stanza's trainer reads the
    raw text (one paragraph per sentence, blank lines between) and one label
    per character: 0 inside a word, 1 at a word's end, 2 at a sentence's end.
    """
    pytest.importorskip(
        "stanza", reason="stanza is not installed (pip install 'cws-bench[stanza]')"
    )
    import json

    from stanza.models import tokenizer

    root = tmp_path_factory.mktemp("stanza")
    sentences = [line.split() for line in TINY_TRAINING]
    labels = ["".join("0" * (len(w) - 1) + "1" for w in words)[:-1] + "2" for words in sentences]
    (root / "train.txt").write_text(
        "\n\n".join("".join(words) for words in sentences) + "\n", encoding="utf-8"
    )
    (root / "train.toklabels").write_text("\n\n".join(labels) + "\n", encoding="utf-8")
    (root / "mwt.json").write_text("[]", encoding="utf-8")
    tokenizer.main(
        [
            *("--txt_file", str(root / "train.txt"), "--label_file", str(root / "train.toklabels")),
            *("--dev_txt_file", str(root / "train.txt")),
            *("--dev_label_file", str(root / "train.toklabels")),
            *("--mwt_json_file", str(root / "mwt.json"), "--no_use_mwt", "--skip_newline"),
            *("--lang", "zh-hans", "--shorthand", "zh-hans_tiny", "--mode", "train"),
            *("--steps", "20", "--eval_steps", "20", "--batch_size", "8", "--max_seqlen", "50"),
            *("--emb_dim", "16", "--hidden_dim", "16", "--seed", "1", "--cpu"),
            *("--save_dir", str(root), "--save_name", "tokenizer.pt"),
        ]
    )
    resources = {
        "zh-hans": {
            "lang_name": "Chinese",
            "packages": {},
            "tokenize": {"tiny": {}},
            "default_processors": {"tokenize": "tiny"},
        }
    }
    (root / "resources.json").write_text(json.dumps(resources), encoding="utf-8")
    return root, root / "tokenizer.pt"


@pytest.fixture
def silent_server() -> Iterator[Any]:
    """A server on 127.0.0.1 that accepts connections and never answers.

    ``.url`` is its address, ``.connections`` the connections it accepted.
    It stops (every socket closed) when the test ends.
    """
    import socket
    import threading
    import types

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            held.append(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield types.SimpleNamespace(
            url=f"http://127.0.0.1:{listener.getsockname()[1]}", connections=held
        )
    finally:
        stop.set()
        thread.join(timeout=5)
        for connection in held:
            connection.close()
        listener.close()


@pytest.fixture
def stalling_server(serve_http: Any) -> Iterator[Any]:
    """A server on 127.0.0.1 that answers the requests in its ``.answers`` and stalls on
    every other: a model host that answers the first questions, then stalls on a download.

    ``.answers`` maps (method, path) to (status, headers, body); by default HEAD of any
    path says 200, a zip of 1 MB. ``.url`` is its address, ``.asked`` every request (method,
    path), ``.stalled`` those it left unanswered. Its threads end when the test ends.
    """
    import http.server
    import threading
    import types

    stop = threading.Event()
    stalled: list[tuple[str, str]] = []
    asked: list[tuple[str, str]] = []
    answers: dict[tuple[str, str], tuple[int, dict[str, str], bytes]] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def _answer(self, method: str) -> None:
            path = self.path.split("?")[0]
            asked.append((method, path))
            answer = answers.get((method, path))
            if answer is None and method == "HEAD" and not answers:
                answer = (200, {"Content-Type": "application/zip"}, b"")
            if answer is None:
                stalled.append((method, path))
                stop.wait(60)  # silent until the test ends
                return
            status, headers, body = answer
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body) if body else 1 << 20))
            self.end_headers()
            if method != "HEAD":
                self.wfile.write(body)

        def do_HEAD(self) -> None:
            self._answer("HEAD")

        def do_GET(self) -> None:
            self._answer("GET")

        def log_message(self, *args: Any) -> None:
            pass

    server = serve_http(Handler)
    try:
        yield types.SimpleNamespace(
            url=f"http://127.0.0.1:{server.server_port}",
            stalled=stalled,
            asked=asked,
            answers=answers,
        )
    finally:
        stop.set()  # before serve_http stops the server
