"""Named pipes: created with their mode, refused when not a FIFO, read as lines with a length limit."""

from __future__ import annotations

import os
import stat

import pytest

from flapjack_py.intake import fifo


def test_missing_pipe_is_created_open_with_its_mode_despite_the_umask(tmp_path):
    path = str(tmp_path / "event_stream.fifo")
    old = os.umask(0o077)
    try:
        fd = fifo.prepare_fifo(path, 0o664)
    finally:
        os.umask(old)
    info = os.stat(path)
    assert stat.S_ISFIFO(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o664
    assert os.listdir(tmp_path) == ["event_stream.fifo"]  # the temporary name is gone
    writer = os.open(path, os.O_WRONLY | os.O_NONBLOCK)  # a reader is there already: no ENXIO
    os.close(writer)
    os.close(fd)
    os.close(fifo.prepare_fifo(path, 0o600))  # an existing pipe is used as it is
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o664


def test_a_plain_file_or_directory_is_refused(tmp_path):
    plain = tmp_path / "plain"
    plain.write_text("")
    with pytest.raises(fifo.FifoError, match="exists and is not a named pipe"):
        fifo.prepare_fifo(str(plain))
    with pytest.raises(fifo.FifoError, match="exists and is not a named pipe"):
        fifo.prepare_fifo(str(tmp_path))
    with pytest.raises(fifo.FifoError, match="cannot create the named pipe"):
        fifo.prepare_fifo(str(tmp_path / "no-such-dir" / "p"))


def test_opened_read_write_a_writer_never_meets_a_closed_pipe(tmp_path):
    path = str(tmp_path / "p")
    fd = fifo.prepare_fifo(path)
    try:
        for n in range(3):  # each writer opens non-blocking (ENXIO without a reader), writes and closes
            w = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            os.write(w, f"line {n}\n".encode())
            os.close(w)
        lines = fifo.read_lines(fd)
        assert [next(lines) for _ in range(3)] == ["line 0", "line 1", "line 2"]
    finally:
        os.close(fd)


def test_lines_split_across_reads_and_overlong_lines(monkeypatch):
    monkeypatch.setattr(fifo, "MAX_LINE", 10)
    monkeypatch.setattr(fifo, "READ_SIZE", 4)
    r, w = os.pipe()
    os.write(w, b"short\n" + b"x" * 25 + b"\nnext \xff\n\ntail")
    os.close(w)
    assert list(fifo.read_lines(r)) == ["short", fifo.TOO_LONG, "next \ufffd", ""]
    os.close(r)
