"""The line through two profiled counts against the board's mean transfer path (vmscale_model.pathline)."""

import pytest

from vmscale_model import pathline

# a board of 10-core sockets: one socket's path at <= 10 cores, then longer with every socket spanned
PATH = {1: 50.0, 4: 50.0, 10: 50.0, 20: 141.0, 40: 226.0, 80: 320.0}.__getitem__


def test_the_line_through_the_two_largest_counts_on_different_paths():
    line = pathline.through({4: 500.0, 10: 600.0, 20: 1_510.0}, PATH)
    # 10 and 4 share one socket's path: the line is through 20 and 10
    assert (line.at, line.below) == (20, 10) and line.step == pytest.approx(91.0)
    assert line.slope == pytest.approx(910 / 91)
    assert line(80, PATH) == pytest.approx(1_510 + 10.0 * (320 - 141))
    assert line(10, PATH) == pytest.approx(600.0)      # below the top count, the lower count's


def test_one_count_or_one_path_carries_nothing():
    assert pathline.through({20: 700.0}, PATH)(80, PATH) == 700.0
    flat = pathline.through({4: 300.0, 10: 900.0}, PATH)      # both on one socket's path
    assert flat.slope == 0.0 and flat.below == 0 and flat(80, PATH) == 900.0


def test_a_cost_that_shrank_with_the_path_is_not_carried_down():
    line = pathline.through({10: 900.0, 20: 700.0}, PATH)
    assert line.slope == 0.0 and line(80, PATH) == 700.0 and line.below == 10


def test_no_counts_is_an_error():
    with pytest.raises(ValueError, match="at least one"):
        pathline.through({}, PATH)
