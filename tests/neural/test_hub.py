"""Hub names: the local Hugging Face cache first, every network wait bounded, one-line errors.

The hub is never reached: a model "in the cache" is a folder built here and
laid out as huggingface_hub lays out its cache (``models--ORG--NAME/snapshots/
COMMIT`` and ``refs/main``), and "the hub" is ``HF_ENDPOINT`` pointed at a
server on 127.0.0.1 that accepts connections and never answers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cws_bench.errors import SegmenterError
from cws_bench.segmenters import get_segmenter

sys.path.insert(0, str(Path(__file__).parent))  # the model builders of the other tests here
from bounds import bounded

pytestmark = [
    pytest.mark.needs(
        "transformers",
        reason="transformers is not installed (pip install 'cws-bench[transformers]')",
    ),
    pytest.mark.needs(
        "huggingface_hub",
        reason="huggingface_hub is not installed (pip install 'cws-bench[transformers]')",
    ),
]

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def cache_model(cache: Path, repo_id: str, folder: Path) -> Path:
    """Lay ``folder`` out in the hub cache ``cache`` as the snapshot of ``repo_id``."""
    root = cache / ("models--" + repo_id.replace("/", "--"))
    snapshot = root / "snapshots" / COMMIT
    shutil.copytree(folder, snapshot)
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "main").write_text(COMMIT, encoding="utf-8")
    return snapshot


@pytest.fixture
def hub(monkeypatch, tmp_path, silent_server):
    """The hub allowed (HF_HUB_OFFLINE off) at the silent server, an empty cache, 1 s waits."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "ENDPOINT", silent_server.url)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("CWS_BENCH_HUB_TIMEOUT", "1")
    return tmp_path / "hub", silent_server


def test_a_cached_model_loads_without_asking_the_hub(hub, tmp_path):
    from test_transformers import build_model

    cache, server = hub
    folder = build_model(tmp_path / "model", ["B", "M", "E", "S"])
    cache_model(cache, "cws/tiny-tagger", folder)
    segmenter = bounded(lambda: get_segmenter("transformers", model="cws/tiny-tagger"))
    assert server.connections == []  # the hub was never asked
    assert "".join(segmenter.segment(["我们是中国人。"])[0]) == "我们是中国人。"
    identity = segmenter.metadata()["model"]
    assert identity["model"] == "cws/tiny-tagger" and identity["revision"] == COMMIT


def test_a_cached_ltp_model_loads_without_asking_the_hub(hub, tmp_path):
    pytest.importorskip("ltp", reason="ltp is not installed (pip install 'cws-bench[ltp]')")
    import json

    import test_ltp
    import torch
    from ltp_core.models.utils import instantiate

    folder = tmp_path / "ltp"
    folder.mkdir()
    vocabulary = test_ltp.SPECIAL + test_ltp.PIECES + test_ltp.CHARACTERS
    config = test_ltp._neural_config(len(vocabulary), crf=False)
    torch.save(instantiate(config["model"]).state_dict(), folder / "pytorch_model.bin")
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (folder / "vocab.txt").write_text("\n".join(vocabulary) + "\n", encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "BertTokenizer"}), encoding="utf-8"
    )
    cache, server = hub
    cache_model(cache, "LTP/small", folder)
    segmenter = bounded(lambda: get_segmenter("ltp", device="cpu"))  # the default: LTP/small
    assert server.connections == []  # the hub was never asked
    assert "".join(segmenter.segment(["我们是中国人。"])[0]) == "我们是中国人。"
    assert segmenter.metadata()["model"]["model"] == "LTP/small"


@pytest.mark.parametrize("name", ["transformers", "ltp"])
def test_an_uncached_model_and_a_silent_hub_fail_in_bounded_time(hub, name):
    if name == "ltp":
        pytest.importorskip("ltp", reason="ltp is not installed (pip install 'cws-bench[ltp]')")
    with pytest.raises(SegmenterError) as caught:
        bounded(lambda: get_segmenter(name, model="nobody/no-such-model", device="cpu"))
    assert hub[1].connections  # the hub was asked, and the wait for it ended
    message = str(caught.value)
    assert "not in the local Hugging Face cache and the hub did not give it within 1 s" in message
    assert "hf download nobody/no-such-model --local-dir FOLDER" in message
    assert "CWS_BENCH_HUB_TIMEOUT" in message


def test_the_cli_says_it_in_one_line_without_retry_noise(tmp_path, silent_server):
    raw = tmp_path / "raw.txt"
    raw.write_text("我们是中国人。\n", encoding="utf-8")
    env = {
        k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    }
    env.update(
        HF_ENDPOINT=silent_server.url,
        HF_HOME=str(tmp_path / "hf"),
        CWS_BENCH_HUB_TIMEOUT="2",
        PYTHONPATH=os.pathsep.join([str(Path(__file__).parents[2]), env.get("PYTHONPATH", "")]),
    )
    command = [sys.executable, "-c", "from cws_bench.cli import main; main()"]
    command += ["segment", "-s", "transformers"]
    command += ["-O", "model=nobody/no-such-model", str(raw), "-o", str(tmp_path / "out.txt")]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) <= 2, done.stderr  # the error and its hint: no retry messages
    assert "did not give it within 2 s" in lines[0]
    assert "hf download nobody/no-such-model --local-dir FOLDER" in done.stderr
    assert not (tmp_path / "out.txt").exists()


SHA = "0123456789abcdef0123456789abcdef01234567"
TREE = f"/api/models/nobody/stalls/tree/{SHA}"
FILE = f"/nobody/stalls/resolve/{SHA}/config.json"


@pytest.mark.parametrize(
    ("answered", "stalls"),
    [
        ((), [("GET", TREE)]),  # the list of the model's files
        # a file's metadata: asked a second time by huggingface_hub's own fallback
        ((("GET", TREE),), [("HEAD", FILE)] * 2),
        ((("GET", TREE), ("HEAD", FILE)), [("GET", FILE)]),  # the file itself
    ],
    ids=["file list", "file metadata", "file download"],
)
def test_a_hub_that_stalls_after_answering_is_bounded_too(
    monkeypatch, tmp_path, stalling_server, answered, stalls
):
    """The hub says the model exists (its info, with one file), answers some requests, then
    stalls: the stalled request is not retried, each wait ends, and the load fails in one
    line. (huggingface_hub would ask 5 more times, 1 to 8 s apart, or resume the download
    5 times: 29 s with a 1 s wait.)"""
    import json

    from huggingface_hub import constants

    info = {"id": "nobody/stalls", "sha": SHA, "siblings": [{"rfilename": "config.json"}]}
    json_type = {"Content-Type": "application/json"}
    for path in (
        "/api/models/nobody/stalls",
        f"/api/models/nobody/stalls/revision/{SHA}",
        "/api/models/nobody/stalls/revision/main",
    ):
        stalling_server.answers["GET", path] = (200, json_type, json.dumps(info).encode())
    listing = [{"type": "file", "path": "config.json", "size": 2, "oid": "ab" * 20}]
    answers = {
        ("GET", TREE): (200, json_type, json.dumps(listing).encode()),
        ("HEAD", FILE): (200, {"X-Repo-Commit": SHA, "ETag": '"ab"', **json_type}, b"{}"),
    }
    for request in answered:
        stalling_server.answers[request] = answers[request]
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "ENDPOINT", stalling_server.url)
    template = stalling_server.url + "/{repo_id}/resolve/{revision}/{filename}"
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("CWS_BENCH_HUB_TIMEOUT", "1")
    with pytest.raises(SegmenterError) as caught:
        bounded(lambda: get_segmenter("transformers", model="nobody/stalls", device="cpu"), 60)
    asked = [request for request in stalling_server.stalled if request[1] in (TREE, FILE)]
    assert asked == stalls
    message = str(caught.value)
    assert "cannot download model 'nobody/stalls'" in message, message
