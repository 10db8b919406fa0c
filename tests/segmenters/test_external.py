"""Tests of cws_bench/segmenters/external.py: any command, and files segmented elsewhere.

The command is tests/segmenters/characters.py, a small segmenter (one
character a word) that can also crash, hang, drop a line, write bad bytes or
normalise characters.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import psutil
import pytest

from cws_bench.errors import SegmenterError
from cws_bench.segmenters import SegmenterOutputError, get_segmenter, segment_lines
from cws_bench.segmenters.external import output_limit

SCRIPT = Path(__file__).resolve().parent / "characters.py"


def command(*flags: str, **options):
    return get_segmenter("command", command=[sys.executable, str(SCRIPT), *flags], **options)


def test_segments_through_the_program():
    lines = ["我们是", "", "他说 OK\t了", "a\u2028b"]
    assert command().segment(lines) == [
        ["我", "们", "是"],
        [],
        ["他", "说", "O", "K", "了"],
        ["a", "b"],
    ]


def test_a_command_string_is_split_like_a_shell_would():
    segmenter = get_segmenter("command", command=f"{sys.executable} {SCRIPT}")
    assert segmenter.segment(["我们"]) == [["我", "们"]]
    assert segmenter.options["command"] == f"{sys.executable} {SCRIPT}"


def test_batches_of_at_most_batch_size_lines():
    lines = [f"第{i}行" for i in range(25)]
    assert command(batch_size=7).segment(lines) == [list(line) for line in lines]


def test_a_crash_names_the_command_lines_and_stderr():
    with pytest.raises(SegmenterError) as caught:
        command("--crash").segment(["我们", "是"])
    message = str(caught.value)
    assert "exited with code 3 on lines 1-2 of the batch" in message
    assert "characters.py --crash" in message
    assert "ValueError: model file missing" in message


def test_a_hang_is_killed_after_the_timeout():
    with pytest.raises(SegmenterError) as caught:
        command("--hang", timeout=1).segment(["我们"])
    message = str(caught.value)
    assert "did not finish within 1 s (killed)" in message
    assert "loading..." in message


def test_a_wrong_number_of_lines():
    with pytest.raises(SegmenterError, match="wrote 1 line for 2 input lines"):
        command("--drop-last").segment(["我们", "是"])


def test_bytes_that_are_not_utf8():
    with pytest.raises(SegmenterError, match="not utf-8"):
        command("--bad-bytes").segment(["我们"])


def test_normalised_output_is_caught_at_its_line():
    with pytest.raises(SegmenterOutputError) as caught:
        list(segment_lines(command("--normalize"), ["我们", "１９９８年"], source="in.txt"))
    assert "in.txt:2:" in str(caught.value)
    assert "input '１９９８年', words give '1998年'" in str(caught.value)


def test_program_not_found_and_bad_options(tmp_path):
    with pytest.raises(SegmenterError, match="program 'no-such-segmenter-xyz' not found"):
        get_segmenter("command", command="no-such-segmenter-xyz --stdin").segment(["我们"])
    with pytest.raises(SegmenterError, match="needs the command"):
        get_segmenter("command")
    with pytest.raises(SegmenterError, match="timeout must be a number more than 0, not 0"):
        get_segmenter("command", command="cat", timeout=0)
    with pytest.raises(
        SegmenterError, match="kind must be one of dictionary, statistical, pretrained, external"
    ):
        get_segmenter("command", command="cat", kind="magic")


def test_metadata_from_options():
    segmenter = command(kind="statistical", version="2.1", trained_on="pd1998")
    assert (segmenter.kind, segmenter.version) == ("statistical", "2.1")
    assert segmenter.trained_on.corpus == "pd1998"
    assert command(trained_on="my corpus").trained_on.corpus is None


# ---------------------------------------------------------------------------
# faults: process groups, endless output


def wait_gone(pid: int) -> bool:
    """Whether the process ``pid`` is dead (gone, or a zombie) within a few seconds."""
    for _ in range(100):
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def wrapper(tmp_path: Path, then: str) -> list[str]:
    """``sh -c`` that starts a sleeping grandchild (its pid in tmp_path/pid), then runs ``then``."""
    pid_file = tmp_path / "pid"
    return ["sh", "-c", f"sleep 300 & echo $! > {pid_file}; {then}"]


def grandchild(tmp_path: Path) -> int:
    return int((tmp_path / "pid").read_text())


def test_a_grandchild_does_not_outlive_a_command_that_exits(tmp_path):
    segmenter = get_segmenter(
        "command", command=wrapper(tmp_path, f"exec {sys.executable} {SCRIPT}")
    )
    assert segmenter.segment(["我们"]) == [["我", "们"]]
    assert wait_gone(grandchild(tmp_path))


def test_a_grandchild_does_not_outlive_a_timeout(tmp_path):
    segmenter = get_segmenter("command", command=wrapper(tmp_path, "sleep 300"), timeout=1)
    with pytest.raises(SegmenterError, match="did not finish within 1 s"):
        segmenter.segment(["我们"])
    assert wait_gone(grandchild(tmp_path))


def test_a_grandchild_does_not_outlive_a_crash(tmp_path):
    segmenter = get_segmenter("command", command=wrapper(tmp_path, "exit 3"))
    with pytest.raises(SegmenterError, match="exited with code 3"):
        segmenter.segment(["我们"])
    assert wait_gone(grandchild(tmp_path))


def test_endless_output_stops_at_a_limit_derived_from_the_input(tmp_path):
    endless = "import sys\nwhile True: sys.stdout.write('我 ' * 4096)"
    segmenter = get_segmenter("command", command=[sys.executable, "-c", endless])
    with pytest.raises(SegmenterError) as caught:
        segmenter.segment(["我们是"])
    data = len("我们是\n".encode())
    assert f"wrote more than {output_limit(data):,} bytes for {data:,} bytes of input" in str(
        caught.value
    )


def test_output_limit_leaves_room_for_any_segmentation():
    line = "１２ab我们"  # full-width digits may come back as ASCII, ASCII as full-width
    data = len(f"{line}\n".encode())
    widest = " ".join("Ｘ" for _ in line) + "\r\n"
    assert len(widest.encode()) <= output_limit(data)
    assert output_limit(data) < 100 * data + (1 << 17)


def test_a_long_input_is_streamed_both_ways():
    # More than a pipe buffer each way: writing all input before reading would deadlock.
    lines = ["我们是学生" * 2000] * 40
    assert command().segment(lines) == [list(line) for line in lines]


def test_an_unbalanced_quote_is_a_segmenter_error():
    with pytest.raises(SegmenterError, match="cannot be split into arguments"):
        get_segmenter("command", command="my-seg --name 'unclosed")


# ---------------------------------------------------------------------------
# file


def test_file_serves_its_segmentations_in_batches(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("我们 是\n\n学生\n我们 是\n我 们是\n", encoding="utf-8")
    segmenter = get_segmenter("file", path=str(path))
    lines = ["我们是", "", "学生", "我们是", "我们是"]
    out = [words for words in segment_lines(segmenter, lines, batch_size=2)]
    # equal lines are served in file order
    assert out == [["我们", "是"], [], ["学生"], ["我们", "是"], ["我", "们是"]]
    assert segmenter.version.startswith("file:")


def test_file_for_another_input_is_caught(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("我们 是\n", encoding="utf-8")
    segmenter = get_segmenter("file", path=str(path))
    with pytest.raises(SegmenterOutputError) as caught:
        list(segment_lines(segmenter, ["我们是", "学生"], source="raw.txt"))
    message = str(caught.value)
    assert message.startswith("segmenter file: raw.txt:2: no line of")
    assert "'学生'" in message
    with pytest.raises(SegmenterError, match="no such file"):
        get_segmenter("file", path=str(tmp_path / "none.txt"))


def test_file_and_command_rows_are_listed_as_external_not_pretrained(tmp_path):
    from click.testing import CliRunner

    from cws_bench.cli import cli

    listed = CliRunner().invoke(cli, ["segmenters"])
    assert listed.exit_code == 0
    kinds = {line.split()[0]: line.split()[1] for line in listed.output.splitlines()[1:] if line}
    assert kinds["file"] == "external" and kinds["command"] == "external"
    assert kinds["jieba"] == "pretrained"  # the others keep theirs
    segmented = tmp_path / "out.txt"
    segmented.write_text("我们 是\n", encoding="utf-8")
    assert get_segmenter("file", path=str(segmented)).kind == "external"
    command = get_segmenter("command", command=[sys.executable, str(SCRIPT)])
    assert command.kind == "external"
    # the kind option still says what the program is
    said = get_segmenter("file", path=str(segmented), kind="statistical")
    assert said.kind == "statistical" and said.options["kind"] == "statistical"
