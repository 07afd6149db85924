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


PATH2 = {2: 50.0, **{n: PATH(n) for n in (1, 4, 10, 20, 40, 80)}}.__getitem__


def test_the_growth_with_the_waiters_is_read_on_one_socket_weighted_by_the_events_seen():
    # y = 1,000 + 200 (n - 1) on one socket, plus a sampling error at 2 cores, where few were seen;
    # 20 cores is another path (its growth is the path's, not the waiters'), so it is not used
    points = {2: 1_600.0, 4: 1_600.0, 10: 2_800.0, 20: 9_000.0}
    seen = {2: 1, 4: 1_000, 10: 1_000, 20: 1_000}
    w = pathline.waiters(points, seen, PATH2)
    assert w.counts == (2, 4, 10)
    # the weighted slope: nearly the 4-10 line's, 200 a waiter; 2 cores' outlier barely moves it
    assert 195 < w.per_waiter < 202 and 0 < w.stderr < 20
    # unweighted the outlier would pull it down (x = 1, 3, 9)
    assert w.per_waiter > pathline.waiters(points, {2: 1_000, 4: 1_000, 10: 1_000}, PATH2).per_waiter


def test_no_growth_with_the_waiters_without_two_counts_on_one_socket_or_where_it_falls():
    assert pathline.waiters({10: 900.0, 20: 5_000.0}, {10: 9, 20: 9}, PATH2).per_waiter == 0.0
    assert pathline.waiters({1: 100.0, 10: 900.0}, {1: 9, 10: 9}, PATH2).per_waiter == 0.0   # 1 core: no waiter
    falls = pathline.waiters({2: 900.0, 4: 800.0, 10: 700.0, 20: 2_000.0}, {2: 9, 4: 9, 10: 9, 20: 9}, PATH2)
    assert falls.per_waiter == 0.0 and falls.counts == (2, 4, 10)
    # every count on one path (a crossbar): the growth is not told apart from the path's
    assert pathline.waiters({4: 1_000.0, 10: 2_200.0}, {4: 5, 10: 5}, PATH2).per_waiter == 0.0
    # two counts on one socket: a slope, and no residual to give it an error
    two = pathline.waiters({4: 1_000.0, 10: 2_200.0, 20: 5_000.0}, {4: 5, 10: 5, 20: 5}, PATH2)
    assert two.per_waiter == pytest.approx(200.0) and two.stderr == 0.0
