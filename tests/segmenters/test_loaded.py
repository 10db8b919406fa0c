"""Tests of cws_bench/segmenters/loaded.py: one read per model content in a process."""

from __future__ import annotations

from cws_bench.segmenters import loaded


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
