"""Tests of cws_bench/segmenters/loaded.py: one read per model content in a process."""

from __future__ import annotations

from cws_bench.segmenters import loaded
from cws_bench.text.checksums import file_checksum


def test_a_model_is_read_once_per_content_and_only_the_last_few_are_kept(tmp_path):
    reads = []

    def reader(path):
        def read():
            reads.append(path.name)
            return path.read_text(encoding="utf-8")

        return read

    paths = [tmp_path / f"model{i}.txt" for i in range(loaded.KEEP + 1)]
    for i, path in enumerate(paths):
        path.write_text(f"weights {i}", encoding="utf-8")
    copy = tmp_path / "copy.txt"
    copy.write_text("weights 0", encoding="utf-8")
    assert loaded.shared_model("test-model", [paths[0]], reader(paths[0])) == "weights 0"
    # the same bytes under another name: the model read, not the file, is what is kept
    assert loaded.shared_model("test-model", [copy], reader(copy)) == "weights 0"
    # another kind of model from the same file is read by its own reader
    assert loaded.shared_model("other-model", [copy], reader(copy)) == "weights 0"
    assert reads == ["model0.txt", "copy.txt"]
    for path in paths[1:]:  # more models than a process keeps: the oldest is let go
        loaded.shared_model("test-model", [path], reader(path))
    loaded.shared_model("test-model", [paths[0]], reader(paths[0]))
    assert reads == ["model0.txt", "copy.txt", "model1.txt", "model2.txt", "model0.txt"]


def test_a_model_whose_file_changed_while_it_was_read_is_not_kept(tmp_path):
    path = tmp_path / "model.txt"
    path.write_text("old", encoding="utf-8")
    reads = []

    def read_then_edited():
        reads.append(1)
        text = path.read_text(encoding="utf-8")
        path.write_text("new", encoding="utf-8")  # an edit right after the read
        return text

    assert loaded.shared_model("edited-model", [path], read_then_edited) == "old"
    # "old" was kept under no content: the file's new content is read anew
    assert loaded.shared_model("edited-model", [path], lambda: "read again") == "read again"


def test_a_stored_model_is_read_back_by_the_next_process_and_keyed_by_content(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("CWS_BENCH_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "model.txt"
    path.write_text("weights", encoding="utf-8")
    stored = loaded.Stored("upper 1", lambda text: text.upper().encode(), bytes.decode)
    loaded.forget_models("stored-model")
    reads = []

    def read():
        reads.append(path.read_text(encoding="utf-8"))
        return reads[-1]

    assert loaded.shared_model("stored-model", [path], read, stored=stored) == "weights"
    kept = loaded.stored_path("stored-model", "upper 1", [file_checksum(path)])
    assert kept.read_bytes() == b"WEIGHTS"  # written by dump
    loaded.forget_models("stored-model")  # as in a new process: read from the stored file
    assert loaded.shared_model("stored-model", [path], read, stored=stored) == "WEIGHTS"
    assert reads == ["weights"]
    # another version of the format is another file
    other = loaded.Stored("upper 2", stored.dump, stored.load)
    loaded.forget_models("stored-model")
    assert loaded.shared_model("stored-model", [path], read, stored=other) == "weights"
    # the model's file edited: its new content is read, never the stored old one
    path.write_text("new weights", encoding="utf-8")
    loaded.forget_models("stored-model")
    assert loaded.shared_model("stored-model", [path], read, stored=stored) == "new weights"
    assert reads == ["weights", "weights", "new weights"]
    assert sorted(p.name for p in kept.parent.iterdir() if p.name.endswith(".tmp")) == []


def test_a_stored_file_that_cannot_be_read_back_is_read_anew_and_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv("CWS_BENCH_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "model.txt"
    path.write_text("weights", encoding="utf-8")

    def strict(data: bytes) -> str:
        if not data.startswith(b"OK "):
            raise ValueError("not a stored model")
        return data[3:].decode()

    stored = loaded.Stored("strict 1", lambda text: b"OK " + text.encode(), strict)
    kept = loaded.stored_path("stored-model", "strict 1", [file_checksum(path)])
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"cut sh")  # a file cut short, or another program's
    loaded.forget_models("stored-model")
    assert loaded.shared_model("stored-model", [path], lambda: "read", stored=stored) == "read"
    assert kept.read_bytes() == b"OK read"
    loaded.forget_models("stored-model")
    assert loaded.shared_model("stored-model", [path], lambda: "again", stored=stored) == "read"


def test_a_cache_folder_that_cannot_be_written_only_costs_the_full_read(tmp_path, monkeypatch):
    blocked = tmp_path / "a file"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("CWS_BENCH_CACHE_DIR", str(blocked))  # a file: no folder below it
    path = tmp_path / "model.txt"
    path.write_text("weights", encoding="utf-8")
    stored = loaded.Stored("plain 1", str.encode, bytes.decode)
    loaded.forget_models("stored-model")
    assert loaded.shared_model("stored-model", [path], lambda: "read", stored=stored) == "read"
    loaded.forget_models("stored-model")
    assert loaded.shared_model("stored-model", [path], lambda: "again", stored=stored) == "again"
