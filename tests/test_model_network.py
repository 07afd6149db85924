"""The model's vocabulary (vmscale_model.network), each figure worked out by hand: hop counts
of every interconnect law, service times that grow with them, the demand of a lock that
holds its line, which models MVA solves exactly, and the inputs refused."""

import pytest

from vmscale_model.network import LAWS, Cost, Model, Station, hops, single_line


@pytest.mark.parametrize("law, n, want", [
    ("crossbar", 1, 1), ("crossbar", 64, 1),
    ("mesh", 1, 1), ("mesh", 16, 2 * 15 / 12), ("mesh", 64, 2 * 63 / 24),   # 2(k^2-1)/(3k)
    ("ring", 1, 1), ("ring", 2, 1), ("ring", 4, 1), ("ring", 8, 2), ("ring", 64, 16),
    ("tree", 1, 1), ("tree", 2, 1), ("tree", 8, 3), ("tree", 64, 6),
    ("ring", 0, 1), ("tree", 0, 1),   # fewer than one core is one
])
def test_hops_of_every_law(law, n, want):
    assert hops(law, n) == pytest.approx(want)


def test_an_unknown_law_is_refused_and_every_known_one_answers():
    with pytest.raises(ValueError, match="unknown interconnect law 'torus'"):
        hops("torus", 4)
    assert [hops(law, 16) for law in LAWS] == [1, pytest.approx(2.5), 4, 4]


def test_costs_grow_with_hops_only_when_asked():
    assert Cost(30).at(64) == 30 and Cost(30).per_hop == 0 and Cost(30).law == "crossbar"
    assert Cost(30, per_hop=5, law="ring").at(64) == 30 + 5 * 16
    assert Cost(30, per_hop=5).at(64) == 35        # a crossbar is one hop at any size


def test_demand_of_a_lock_is_its_line_its_hold_and_its_inner_lines():
    inner = Station("counter", 7.0)
    lock = Station("mmap_lock", Cost(10, per_hop=2, law="tree"), hold=100.0, inner=(inner,), kind="lock")
    m = Model(think=500, stations=(lock, Station("pte", 3.0))).validate()
    assert m.demands(8) == [10 + 2 * 3 + 100 + 7, 3]
    assert [s.name for s in m.all_stations()] == ["mmap_lock", "counter", "pte"]
    assert not m.product_form()                     # a lock holding other lines is not product form


@pytest.mark.parametrize("model, exact", [
    (Model(think=1, stations=(Station("a", 1.0),)), True),
    (Model(think=1, stations=(Station("a", 1.0),), dist="det"), False),
    (Model(think=1, stations=(Station("a", 1.0, hold=2.0),)), False),
    (Model(think=1, stations=(Station("a", 1.0, inner=(Station("b", 1.0),)),)), False),
    (Model(think=1), True),
])
def test_which_models_mva_solves_exactly(model, exact):
    assert model.product_form() is exact


def test_bad_models_are_refused_and_zeroes_are_not():
    single_line(0, 0)                               # no think time, a free line: valid limits
    with pytest.raises(ValueError, match="think time must be >= 0"):
        single_line(-1, 10)
    with pytest.raises(ValueError, match="times must be >= 0"):
        single_line(1, -10)
    with pytest.raises(ValueError, match="times must be >= 0"):
        Model(think=1, stations=(Station("l", 1.0, hold=-1.0),)).validate()
    with pytest.raises(ValueError, match="dist must be"):
        single_line(1, 10, dist="gamma")
    m = single_line(100, Cost(20, per_hop=1, law="ring"))
    assert m.stations[0].name == "line" and m.stations[0].kind == "line" and m.dist == "exp"
    assert m.demands(64) == [36]


def test_models_are_values():
    # frozen: usable as keys of the fits' caches, never changed behind a solver's back
    m = single_line(100, Cost(20, per_hop=1, law="mesh"))
    assert hash(m) == hash(single_line(100, Cost(20, per_hop=1, law="mesh")))
    with pytest.raises(AttributeError):
        m.think = 5
