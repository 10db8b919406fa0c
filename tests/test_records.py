"""Tests of cws_bench/results/records.py: a bake-off cache record is checked before it is used."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cws_bench.results.records import (
    RECORD_SCHEMA,
    SHARD_SCHEMA,
    _are_counts,
    _are_words,
    _schema_problem,
    load_record,
    load_shard_record,
    pack_counts,
    record_checksum,
    record_problems,
    schema_problem,
    store_record,
)
from cws_bench.run.bakeoff import run_bakeoff
from cws_bench.run.config import load_config
from cws_bench.run.pair import CACHE_VERSION

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DICT = ROOT / "dictionaries" / "sample.txt"

CONFIG = f"""
name = "records"
resamples = 20

[[corpora]]
name = "sample"

[[segmenters]]
name = "fmm"
options = {{ lexicon = "{SAMPLE_DICT}" }}
"""


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("records")
    (folder / "bakeoff.toml").write_text(CONFIG, encoding="utf-8")
    config = load_config(folder / "bakeoff.toml")
    result = run_bakeoff(config, output_dir=folder / "out", jobs=1, write=False)
    (path,) = (folder / "out" / "cache").glob("*.json")
    return config, result, path


def rerun_with(first_run, tmp_path, corrupt):
    """Rerun the bake-off with its one cache record replaced by ``corrupt(record)``."""
    config, result, path = first_run
    out = tmp_path / "out"
    shutil.copytree(path.parent.parent, out)
    cached = out / "cache" / path.name
    record = json.loads(path.read_text(encoding="utf-8"))
    changed = corrupt(record)
    cached.write_text(
        changed if isinstance(changed, str) else json.dumps(changed), encoding="utf-8"
    )
    again = run_bakeoff(config, output_dir=out, jobs=1, write=False)
    return result, again, cached


def edit_scores(**values):
    def corrupt(record):
        record["scores"].update(values)
        return record

    return corrupt


def drop(key):
    def corrupt(record):
        del record[key]
        return record

    return corrupt


def edit_timing(record):
    record["timing"]["chars_per_s"] = 10 * record["timing"]["chars_per_s"]
    return record


def truncate_counts(record):
    record["sentence_counts"] = record["sentence_counts"][:-1]
    record.pop("checksum")
    return record


@pytest.mark.parametrize(
    ("corrupt", "problem"),
    [
        (lambda record: [], "is not of type 'object'"),
        (lambda record: "{not json", "unreadable cache record"),
        (drop("scores"), "'scores' is a required property"),
        (edit_scores(f1="high"), "scores.f1: 'high' is not of type 'number'"),
        (edit_scores(f1=0.908), "scores.f1 is 0.908 but its counts"),
        (edit_timing, "the checksum does not match"),
        (truncate_counts, "sentence_counts sum to"),
    ],
    ids=["list", "not-json", "no-scores", "f1-text", "f1-digit", "edited-timing", "cut-counts"],
)
def test_an_invalid_record_is_recomputed_with_a_warning(first_run, tmp_path, corrupt, problem):
    result, again, cached = rerun_with(first_run, tmp_path, corrupt)
    (pair,) = again.pairs
    assert pair.ok and not pair.cached
    assert pair.scores == result.pairs[0].scores
    (note,) = again.settings["notes"]
    assert note.startswith(f"{cached}: ")
    assert problem in note
    assert "running the pair again" in note
    record, warning = load_record(cached, version=CACHE_VERSION)  # rewritten, valid
    assert warning is None and record["scores"] == pair.scores


def test_a_valid_record_is_used_as_stored(first_run, tmp_path):
    result, again, _ = rerun_with(first_run, tmp_path, lambda record: record)
    assert again.pairs[0].cached
    assert again.settings["notes"] == []
    assert again.pairs[0].scores == result.pairs[0].scores


def test_a_corpus_with_an_empty_gold_line_is_all_cache_hits_on_a_rerun(tmp_path):
    # an empty gold line is segmented (its raw line is) but not scored: no row, no redo
    gold = tmp_path / "g.txt"
    gold.write_text("我们 是 学生\n\n他 来 了\n今天 天气 好\n", encoding="utf-8")
    (tmp_path / "bakeoff.toml").write_text(
        f"name = 'empty'\nresamples = 20\n[[corpora]]\ngold = '{gold}'\n"
        f"[[segmenters]]\nname = 'fmm'\noptions = {{ lexicon = '{SAMPLE_DICT}' }}\n"
        "[[segmenters]]\nname = 'jieba'\n",
        encoding="utf-8",
    )
    config = load_config(tmp_path / "bakeoff.toml")
    first = run_bakeoff(config, output_dir=tmp_path / "out", jobs=1, write=False)
    assert [p.scores["sentences"] for p in first.pairs] == [3, 3]
    again = run_bakeoff(config, output_dir=tmp_path / "out", jobs=1, write=False)
    assert [p.cached for p in again.pairs] == [True, True]
    assert again.settings["notes"] == []
    assert [p.scores for p in again.pairs] == [p.scores for p in first.pairs]


def test_a_record_of_another_version_is_silently_ignored(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"version": CACHE_VERSION - 1}), encoding="utf-8")
    assert load_record(path, version=CACHE_VERSION) == (None, None)
    assert load_record(tmp_path / "none.json", version=CACHE_VERSION) == (None, None)


def test_the_checksum_survives_the_round_trip(first_run, tmp_path):
    record = json.loads(first_run[2].read_text(encoding="utf-8"))
    record.pop("checksum")
    record["tuple"] = (1, 2)  # written as a list
    store_record(tmp_path / "r.json", record)
    stored = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert stored["key"] == "r"  # a record names its own key: its file's name
    keyed = {**record, "key": "r"}
    assert stored["checksum"] == record_checksum(keyed) == record_checksum(stored)
    assert record_problems(stored) == []


def test_impossible_counts_are_refused():
    record = json.loads(json.dumps(_minimal()))
    record["scores"]["correct_words"] = 9
    assert record_problems(record) == ["scores: 9 correct words of 5 predicted and 4 gold"]


def _minimal():
    kinds = ("splits", "merges", "crossings", "missed_oov", "recall_by_length")
    analysis = {kind: [] for kind in kinds}
    return {
        "version": CACHE_VERSION,
        "scores": {
            "precision": 0.6,
            "recall": 0.75,
            "f1": 2 * 3 / 9,
            "gold_words": 4,
            "pred_words": 5,
            "correct_words": 3,
        },
        "sentence_counts": [[3, 5, 4]],
        "analysis": {**analysis, "distinct": {}},
        "timing": {},
        "peak_memory_mib": 1.0,
        "warnings": [],
        "segmenter_info": {},
    }


def test_runs_of_empty_lines_are_packed_on_file(tmp_path):
    record = _minimal()
    record["sentence_counts"] = [[0, 0, 0]] * 1000 + [[3, 5, 4]] + [[0, 0, 0]] * 999
    record["scores"]["sentences"] = 2000
    path = tmp_path / "r.json"
    store_record(path, record)
    assert json.loads(path.read_text(encoding="utf-8"))["sentence_counts"] == [1000, [3, 5, 4], 999]
    assert path.stat().st_size < 1000
    loaded, warning = load_record(path, version=CACHE_VERSION)
    assert warning is None
    assert loaded == record
    # One empty row fewer: the sums agree, the number of sentences does not.
    stored = json.loads(path.read_text(encoding="utf-8"))
    stored["sentence_counts"][-1] = 998
    stored.pop("checksum")
    path.write_text(json.dumps(stored), encoding="utf-8")
    loaded, warning = load_record(path, version=CACHE_VERSION)
    assert loaded is None
    assert "sentence_counts has 1,999 rows for 2,000 scored sentences" in warning


# The record writer before orjson (the oracle): json.dump of the record with the checksum
# of its text through JSON. Files it wrote must read back the same; its checksums are kept.


def old_checksum(record):
    body = {key: value for key, value in record.items() if key != "checksum"}
    plain = json.loads(json.dumps(body, ensure_ascii=False, allow_nan=False))
    text = json.dumps(plain, sort_keys=True, ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def old_store(path, record):
    """The json writer of a record (which names its key, its file's name)."""
    record = {**record, "key": Path(path).stem}
    stored = {**record, "checksum": old_checksum(record)}
    if isinstance(stored.get("sentence_counts"), list):
        stored["sentence_counts"] = pack_counts(stored["sentence_counts"])
    with open(path, "w", encoding="utf-8") as f:
        json.dump(stored, f, ensure_ascii=False, allow_nan=False)


def outcome(function, *args, **options):
    try:
        return function(*args, **options)
    except Exception as e:  # the same error type, or the same value
        return type(e)


_scalars = (
    st.none()
    | st.booleans()
    | st.integers()  # past 64 bits too: orjson refuses them, json writes them
    | st.floats(allow_nan=False)  # infinities: refused by both
    | st.text(max_size=8)
)
_keys = st.text(max_size=4) | st.integers(-3, 12)  # integer keys sort apart from their text
_json_like = st.recursive(
    _scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.lists(children, max_size=3).map(tuple)
        | st.dictionaries(_keys, children, max_size=4)
    ),
    max_leaves=20,
)


@settings(deadline=None, max_examples=300)
@given(record=st.dictionaries(st.text(max_size=6), _json_like, max_size=6))
def test_the_checksum_and_file_are_those_of_the_json_writer(tmp_path_factory, record):
    assert outcome(record_checksum, record) == outcome(old_checksum, record)
    folder = tmp_path_factory.mktemp("r")
    (folder / "new").mkdir()
    (folder / "old").mkdir()
    # one name, the record's key, in two folders
    new, old = folder / "new" / "record.json", folder / "old" / "record.json"
    if outcome(old_store, old, record) is not None:  # refused (a NaN, an infinity): by both
        assert outcome(store_record, new, record) == outcome(old_store, old, record)
        assert not new.exists()
        return
    store_record(new, record)
    assert json.loads(new.read_bytes()) == json.loads(old.read_bytes())


def _shard():
    return {
        "version": CACHE_VERSION,
        "pred": [["我们", "是", "学生"], [], ["ｉＰｈｏｎｅ", "2008", "年"]],
        "segment_s": 0.25,
        "loads": [["fmm {}", "worker-1", 1e-05]],
        "facts": {
            "info": {"name": "fmm"},
            "trained_on": None,
            "notes": [],
            "has_speed": True,
            "leaks": [],
        },
        "peak_memory_mib": 81.5,
    }


@pytest.mark.parametrize("store", [store_record, old_store])
def test_shards_and_records_read_back_whoever_wrote_them(tmp_path, store):
    """A file of the json writer (an old cache) reads back as one of the orjson writer."""
    lines = ["我们是学生", "", "ｉＰｈｏｎｅ 2008年"]
    store(tmp_path / "shard.json", _shard())
    assert load_shard_record(tmp_path / "shard.json", version=CACHE_VERSION, lines=lines) == (
        _shard(),
        None,
    )
    record = _minimal()
    record["sentence_counts"] = [[0, 0, 0], [0, 0, 0], [3, 5, 4]]
    record["timing"] = {"sentences": 3, "chars_per_s": 1.5e-07}
    store(tmp_path / "pair.json", record)
    assert load_record(tmp_path / "pair.json", version=CACHE_VERSION) == (record, None)


def test_an_edited_orjson_file_is_refused(tmp_path):
    path = tmp_path / "shard.json"
    store_record(path, _shard())
    path.write_bytes(path.read_bytes().replace("学生".encode(), "学主".encode()))
    lines = ["我们是学主", "", "ｉＰｈｏｎｅ 2008年"]
    data, warning = load_shard_record(path, version=CACHE_VERSION, lines=lines)
    assert data is None
    assert "the checksum does not match the content" in warning


_values = st.none() | st.booleans() | st.integers(-2, 3) | st.floats(-1, 2) | st.text(max_size=3)


@settings(deadline=None, max_examples=200)
@given(
    pred=st.lists(st.lists(st.text(max_size=3) | _values, max_size=4) | _values, max_size=4),
    rows=st.lists(st.lists(st.integers(-1, 5) | _values, max_size=4) | _values, max_size=4),
    segment_s=st.floats(-1, 2) | st.text(max_size=2),
)
def test_the_fast_schema_check_gives_the_validators_verdict(pred, rows, segment_s):
    """Lists of words and rows of counts checked in Python: the same problem, or none."""
    shard = {**_shard(), "pred": pred, "segment_s": segment_s}
    assert _schema_problem(shard, SHARD_SCHEMA, "pred", _are_words) == schema_problem(
        shard, SHARD_SCHEMA
    )
    record = {**_minimal(), "sentence_counts": rows}
    assert _schema_problem(record, RECORD_SCHEMA, "sentence_counts", _are_counts) == (
        schema_problem(record, RECORD_SCHEMA)
    )


def old_load_shard_record(path, *, version, lines):
    """load_shard_record as it was (cws_bench/records.py at e7653e8): json, the whole schema."""
    name = str(path)
    if not Path(path).exists():
        return None, None
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return None, f"{name}: unreadable cache record ({e}); running the shard again"
    if isinstance(record, dict) and record.get("version") != version:
        return None, None
    problem = schema_problem(record, SHARD_SCHEMA)
    if problem is None and record.get("checksum") != old_checksum(record):
        problem = "the checksum does not match the content (the file was edited)"
    if problem is None and (
        len(record["pred"]) != len(lines)
        or any("".join(w) != "".join(line.split()) for w, line in zip(record["pred"], lines))
    ):
        problem = "its words are not those of the shard's lines"
    if problem is not None:
        return None, f"{name}: invalid cache record ({problem}); running the shard again"
    record.pop("checksum", None)
    record.pop("key", None)  # its key was its file's (or the edit changed the checksum)
    return record, None


_SHARD_LINES = ["我们是学生", "", "ｉＰｈｏｎｅ 2008年"]
_EDITS = [
    *["", "1", "-", '"', "[", "]", "{", "}", ",", "null", "x", "\\ud800", "NaN", "1e400"],
    *["99999999999999999999999", '"checksum": "0",', "\u00e9"],
]


@settings(deadline=None, max_examples=300)
# orjson read this edit's integer past 64 bits as 1e+23: the message named another value
@example(writer="new", at=0.240234375, cut=6, insert="99999999999999999999999", raw=False)
@given(
    writer=st.sampled_from(["new", "old"]),
    at=st.floats(0, 1),
    cut=st.integers(0, 6),
    insert=st.sampled_from(_EDITS) | st.binary(max_size=3).map(lambda b: b.decode("latin-1")),
    raw=st.booleans(),
)
def test_an_edited_shard_file_reads_as_the_old_reader_read_it(
    tmp_path_factory, writer, at, cut, insert, raw
):
    """Any edit of a shard file: the same shard, or the same refusal with the same words."""
    path = tmp_path_factory.mktemp("s") / "shard.json"
    (store_record if writer == "new" else old_store)(path, _shard())
    data = path.read_bytes()
    where = int(at * len(data))
    added = insert.encode("latin-1") if raw else insert.encode("utf-8")  # raw: bad UTF-8
    path.write_bytes(data[:where] + added + data[where + cut :])
    read = load_shard_record(path, version=CACHE_VERSION, lines=_SHARD_LINES)
    before = outcome(old_load_shard_record, path, version=CACHE_VERSION, lines=_SHARD_LINES)
    if isinstance(before, type) and issubclass(before, ValueError):
        # the old reader crashed on an infinity (1e400) or a lone surrogate: now refused
        assert read[0] is None
        assert "(the checksum does not match the content (the file was edited))" in read[1]
    else:
        assert read == before


def test_a_cache_record_reads_into_typed_parts_and_back_to_the_same_json(first_run):
    """The typed record (timing, segmenter info) writes back the very JSON it was read from,
    so cache files written before keep their checksum and results.json its content."""
    from cws_bench.run.pair import PairRecord, PairTiming, SegmenterMetadata

    data, warning = load_record(first_run[2], version=CACHE_VERSION)
    assert warning is None
    record = PairRecord.from_dict(data)
    assert isinstance(record.timing, PairTiming) and isinstance(
        record.segmenter_info, SegmenterMetadata
    )
    assert record.segmenter_info.name == "fmm" and record.timing.sentences == len(
        record.sentence_counts
    )
    body = {key: value for key, value in data.items() if key != "checksum"}
    assert json.dumps(record.to_dict()) == json.dumps(body)  # same keys, order and values
    stored = json.loads(first_run[2].read_text(encoding="utf-8"))
    # the file also names its own key (a record copied over another's file is refused)
    own = {**record.to_dict(), "key": stored["key"]}
    assert record_checksum(own) == stored["checksum"]


def test_a_record_copied_over_another_keys_file_is_refused(tmp_path):
    """A valid record of another segmenter on the same lines, copied over this key's file."""
    lines = ["我们是学生", "", "ｉＰｈｏｎｅ 2008年"]
    store_record(tmp_path / "jieba-shard.json", _shard())
    store_record(tmp_path / "fmm-shard.json", {**_shard(), "segment_s": 9.0})
    shutil.copyfile(tmp_path / "fmm-shard.json", tmp_path / "jieba-shard.json")
    record, warning = load_shard_record(
        tmp_path / "jieba-shard.json", version=CACHE_VERSION, lines=lines
    )
    assert record is None
    assert "the record of 'fmm-shard', copied over this file" in warning
    assert load_shard_record(tmp_path / "fmm-shard.json", version=CACHE_VERSION, lines=lines)[0]

    store_record(tmp_path / "a.json", _minimal())
    shutil.copyfile(tmp_path / "a.json", tmp_path / "b.json")
    record, warning = load_record(tmp_path / "b.json", version=CACHE_VERSION)
    assert record is None
    assert "the record of 'a', copied over this file" in warning
    assert load_record(tmp_path / "a.json", version=CACHE_VERSION) == (_minimal(), None)


RECORDS = ROOT / "tests" / "data" / "records"


def test_a_record_file_written_before_reads_into_typed_scores_and_writes_back_the_same_bytes(
    tmp_path,
):
    """A cache file as an earlier cws-bench wrote it (the sample corpus, fmm): read into the
    typed record (scores and analysis included) and stored again, it is the same file."""
    from cws_bench.results.model import PairAnalysis, PairScores
    from cws_bench.run.pair import PairRecord

    (written,) = RECORDS.glob("*[0-9a-f].json")
    # written by version 4 of the record (a run reads only its own version's records:
    # test_a_record_of_another_version_is_silently_ignored)
    version = json.loads(written.read_text(encoding="utf-8"))["version"]
    assert version < CACHE_VERSION
    data, warning = load_record(written, version=version)
    assert warning is None and data is not None
    record = PairRecord.from_dict(data)
    assert isinstance(record.scores, PairScores) and isinstance(record.analysis, PairAnalysis)
    # typed fields, as the file has them: the sample's test split has 414 gold words
    assert record.scores.gold_words == data["scores"]["gold_words"] == 414
    assert record.scores.method == "interval" and record.scores.beta is None
    assert record.analysis.distinct == data["analysis"]["distinct"]
    assert record.analysis.buckets is not None and record.analysis.tokens is None
    again = tmp_path / written.name  # a record names its own key: the same file name
    store_record(again, record.to_dict())
    assert again.read_bytes() == written.read_bytes()
