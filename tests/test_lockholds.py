"""Lock holds from a sampled exec trace (vmscale.lockholds): the trace lines are gem5's Exec format."""

import pytest

from vmscale import lockholds


def _line(tick, cpu, sym, off=0):
    return f"{tick}: board.processor.cores{cpu:02d}.core: 0xffffffff8141{off:04x} @{sym}+{off}    : nop\n"


def _hold(cpu, t0, site, body, hold, wait=300):
    """A CPU in `site` takes the lock (spinning `wait` ticks), runs `body` and unlocks after `hold`."""
    out = [_line(t0, cpu, site), _line(t0 + 10, cpu, "_raw_spin_lock_irqsave"),
           _line(t0 + 20, cpu, "queued_spin_lock_slowpath"), _line(t0 + wait, cpu, "_raw_spin_lock_irqsave", 8)]
    start = t0 + wait + 10
    out.append(_line(start, cpu, site, 40))
    for k, sym in enumerate(body):
        out.append(_line(start + 10 * (k + 1), cpu, sym))
    out.append(_line(start + hold, cpu, "_raw_spin_unlock_irqrestore"))
    out.append(_line(start + hold + 10, cpu, site, 60))
    return out, start


def test_holds_are_measured_from_the_return_of_the_lock_to_the_unlock():
    a, _ = _hold(0, 1000, "folio_batch_move_lru", ["lru_add", "__mod_zone_page_state"], hold=4000)
    b, _ = _hold(1, 1500, "folios_put_refs", ["free_unref_folios"], hold=2500, wait=2000)
    lines = sorted(a + b, key=lambda s: int(s.split(":")[0]))
    sp = lockholds.spans(lines, [(0, 100_000)], window_ticks=20_000)
    got = {(s["cpu"], s["site"]): s["hold"] for s in sp}
    assert got == {(0, "folio_batch_move_lru"): 4000, (1, "folios_put_refs"): 2500}


def test_the_unlock_named_by_the_lock_sections_start_marker_ends_a_hold():
    lines, _ = _hold(0, 1000, "folio_batch_move_lru", ["lru_add"], hold=3000)
    lines = [ln.replace("@_raw_spin_unlock_irqrestore", "@__lock_text_start") for ln in lines]
    sp = lockholds.spans(lines, [(0, 100_000)], window_ticks=20_000)
    assert [(s["site"], s["hold"]) for s in sp] == [("folio_batch_move_lru", 3000)]


def test_a_hold_whose_wait_began_before_the_window_still_counts():
    lines, _ = _hold(0, 1000, "folio_batch_move_lru", ["lru_add"], hold=3000)
    sp = lockholds.spans(lines[2:], [(0, 100_000)], window_ticks=20_000)   # the window opens mid-spin
    assert [(s["site"], s["hold"]) for s in sp] == [("folio_batch_move_lru", 3000)]


def test_a_hold_cut_by_the_window_or_outside_the_roi_is_dropped():
    head, _ = _hold(0, 1000, "folio_batch_move_lru", ["lru_add"], hold=3000)
    # the unlock is seen only in the next window (a gap longer than the window)
    cut = head[:-2] + [_line(100_000, 0, "_raw_spin_unlock_irqrestore"), _line(100_010, 0, "folio_batch_move_lru")]
    assert lockholds.spans(cut, [(0, 200_000)], window_ticks=20_000) == []
    assert lockholds.spans(head, [(50_000, 90_000)], window_ticks=20_000) == []


def test_nested_irqsave_sections_close_innermost_first():
    outer = [_line(0, 0, "outer"), _line(10, 0, "_raw_spin_lock_irqsave"), _line(20, 0, "outer")]
    inner, _ = _hold(0, 30, "inner", ["work"], hold=500)
    tail = [_line(2000, 0, "_raw_spin_unlock_irqrestore"), _line(2010, 0, "outer")]
    sp = lockholds.spans(outer + inner + tail, [(0, 10_000)], window_ticks=5_000)
    assert [(s["site"], s["hold"]) for s in sp] == [("inner", 500), ("outer", 1980)]


def test_summary_weights_long_holds_by_the_chance_a_window_sees_them_whole():
    w = 10_000
    sp = [{"roi": 0, "cpu": 0, "site": "a", "hold": 5_000}, {"roi": 0, "cpu": 1, "site": "a", "hold": 1_000},
          {"roi": 0, "cpu": 2, "site": "b", "hold": 2_000}]
    rows = {r["site"]: r for r in lockholds.summary(sp, w, tick_per_cycle=10.0, windows=4, roi_ticks=400_000,
                                                     ops=100)}
    wa = w / (w - 5_000) + w / (w - 1_000)
    assert rows["a"]["holds"] == 2 and rows["a"]["weight"] == pytest.approx(wa)
    assert rows["a"]["hold_cycles"] == pytest.approx((2 * 5_000 + w / 9_000 * 1_000) / wa / 10)
    assert rows["a"]["held"] == pytest.approx((2 * 5_000 + w / 9_000 * 1_000) / (4 * w))
    assert rows["b"]["holds_per_op"] == pytest.approx(w / 8_000 / (4 * w) * 400_000 / 100)
    assert list(rows) == ["a", "b"]
    # the holds' spread, weighted as their mean: the model's band carries the mean's sampling error
    mean = (2 * 5_000 + w / 9_000 * 1_000) / wa
    var = (2 * 5_000 ** 2 + w / 9_000 * 1_000 ** 2) / wa - mean ** 2
    assert rows["a"]["hold_sd_cycles"] == pytest.approx(var ** 0.5 / 10) and rows["b"]["hold_sd_cycles"] == 0


def _at(tick, cpu, sym, off=0, op="nop"):
    where = f"@{sym}+{off}" if off else f"@{sym}"
    return f"{tick}: board.processor.cores{cpu:02d}.core: 0xffffffff810a{off:04x} {where}    : {op}\n"


def _write_hold(cpu, t_enter, t_acq, site, t_rel, unlock="up_write", downgrade_at=None):
    """A CPU in `site` calls down_write_killable at t_enter (sleeping in the slow path, whose
    return into the lock is not a call), returns holding it at t_acq, unlocks at t_rel."""
    out = [_at(t_enter - 10, cpu, site, 20), _at(t_enter, cpu, "down_write_killable"),
           _at(t_enter + 10, cpu, "rwsem_down_write_slowpath"), _at(t_enter + 20, cpu, "schedule"),
           _at(t_acq - 20, cpu, "down_write_killable", 30), _at(t_acq - 10, cpu, "down_write_killable", 34, "ret"),
           _at(t_acq, cpu, site, 25)]
    if downgrade_at:
        out += [_at(downgrade_at, cpu, "downgrade_write"), _at(downgrade_at + 10, cpu, site, 60)]
    out += [_at(t_rel, cpu, unlock), _at(t_rel + 10, cpu, "rwsem_wake"), _at(t_rel + 20, cpu, unlock, 40),
            _at(t_rel + 30, cpu, site, 80)]
    return out


def _sorted(lines):
    return sorted(lines, key=lambda s: int(s.split(":")[0]))


def test_a_sleeping_writers_hold_and_the_handoff_to_it_are_measured():
    # CPU 0 holds mmap_lock (mmap) from 1,000 to 6,000; CPU 1 asked at 2,000, slept, and ran with
    # the lock at 9,000 (hand-off 3,000), downgraded it (munmap) and released the read side at 12,000
    a = _write_hold(0, 500, 1_000, "vm_mmap_pgoff", 6_000)
    b = _write_hold(1, 2_000, 9_000, "__vm_munmap", 12_000, unlock="up_read", downgrade_at=10_000)
    sp = lockholds.spans(_sorted(a + b), [(0, 100_000)], window_ticks=50_000, period_ticks=100_000)
    got = {s["site"]: (s["kind"], s["hold"], s["handoff"]) for s in sp}
    assert got == {"vm_mmap_pgoff": ("rwsem-write", 5_000, None), "__vm_munmap": ("rwsem-write", 3_000, 3_000)}
    rows = {r["site"]: r for r in lockholds.summary(sp, 50_000, tick_per_cycle=10.0, windows=1, roi_ticks=100_000,
                                                     ops=2)}
    assert rows["__vm_munmap"]["handoffs"] == 1
    assert rows["__vm_munmap"]["handoff_cycles"] == pytest.approx(3_000 / 10)
    assert rows["vm_mmap_pgoff"]["handoffs"] == 0 and rows["vm_mmap_pgoff"]["handoff_cycles"] != \
        rows["vm_mmap_pgoff"]["handoff_cycles"]                                  # NaN: none seen


def test_no_handoff_for_a_writer_that_came_after_the_release_or_in_another_window():
    a = _write_hold(0, 500, 1_000, "vm_mmap_pgoff", 6_000)
    late = _write_hold(1, 7_000, 7_500, "__vm_munmap", 8_000)                  # the lock was free
    sp = lockholds.spans(_sorted(a + late), [(0, 100_000)], window_ticks=50_000, period_ticks=100_000)
    assert {s["site"]: s["handoff"] for s in sp} == {"vm_mmap_pgoff": None, "__vm_munmap": None}
    # released in one window, acquired in the next: the gap between them was not traced
    nxt = _write_hold(1, 2_000, 101_000, "__vm_munmap", 102_000)
    sp = lockholds.spans(_sorted(a + nxt), [(0, 200_000)], window_ticks=50_000, period_ticks=100_000)
    assert {s["site"]: s["handoff"] for s in sp} == {"vm_mmap_pgoff": None, "__vm_munmap": None}
    # an unlock's own callee returning into it is not a second unlock; an up_read without a
    # downgrade ends no write hold
    plain = _write_hold(0, 500, 1_000, "vm_mmap_pgoff", 6_000)
    plain.insert(-4, _at(3_000, 0, "up_read"))
    sp = lockholds.spans(_sorted(plain), [(0, 100_000)], window_ticks=50_000)
    assert [(s["site"], s["hold"]) for s in sp] == [("vm_mmap_pgoff", 5_000)]


def test_with_the_period_known_a_hold_across_a_short_gap_between_windows_is_cut():
    """90 of every 100 ticks traced: the 10-tick gap between windows is shorter than a window, so
    only the period tells that a hold from 85 to 105 was not seen whole."""
    lines = _hold(0, 60, "folio_batch_move_lru", ["lru_add"], hold=30, wait=10)[0]
    starts = [int(ln.split(":")[0]) for ln in lines]
    assert starts[0] < 90 <= starts[-1] and starts[-2] - starts[4] == 30     # the hold spans tick 90..100
    kept = [ln for ln in lines if not 90 <= int(ln.split(":")[0]) < 100]
    assert [s["hold"] for s in lockholds.spans(kept, [(0, 1_000)], window_ticks=90)] == [30]   # the gap alone
    assert lockholds.spans(kept, [(0, 1_000)], window_ticks=90, period_ticks=100) == []


def test_a_release_whose_hold_began_before_the_window_still_times_the_handoff_after_it():
    # CPU 0's munmap hold began before this window: only its downgrade and up_read are seen, and
    # the up_read returns into vms_complete_munmap_vmas (mmap_lock's); CPU 1 waited since 1,000
    head = [_at(2_000, 0, "__vm_munmap", 90), _at(2_010, 0, "downgrade_write"),
            _at(2_020, 0, "downgrade_write", 30, "ret"), _at(2_030, 0, "vms_complete_munmap_vmas", 40),
            _at(3_000, 0, "up_read"), _at(3_010, 0, "up_read", 20, "ret"), _at(3_020, 0, "vms_complete_munmap_vmas", 50)]
    b = _write_hold(1, 1_000, 4_500, "vm_mmap_pgoff", 8_000)
    sp = lockholds.spans(_sorted(head + b), [(0, 100_000)], window_ticks=50_000, period_ticks=100_000)
    assert [(s["site"], s["hold"], s["handoff"]) for s in sp] == [("vm_mmap_pgoff", 3_500, 1_500)]


def test_holds_per_op_count_every_acquisition_seen_not_only_whole_holds():
    """Two acquisitions at one site in a traced window, one of them cut by the window's end: the
    rate counts both (point events need no weighting), the mean hold only the whole one."""
    whole, _ = _hold(0, 1_000, "folio_batch_move_lru", ["lru_add"], hold=3_000)
    cut, _ = _hold(1, 15_000, "folio_batch_move_lru", ["lru_add"], hold=9_000)
    lines = [ln for ln in _sorted(whole + cut) if int(ln.split(":")[0]) < 20_000]     # window [0, 20,000)
    acq = []
    sp = lockholds.spans(lines, [(0, 40_000)], window_ticks=20_000, period_ticks=100_000, acquired=acq)
    assert [s["hold"] for s in sp] == [3_000] and len(acq) == 2
    (row,) = lockholds.summary(sp, 20_000, tick_per_cycle=1.0, windows=1, roi_ticks=40_000, ops=4, acquired=acq)
    assert row["holds_per_op"] == pytest.approx(2 / 20_000 * 40_000 / 4)
    (old,) = lockholds.summary(sp, 20_000, tick_per_cycle=1.0, windows=1, roi_ticks=40_000, ops=4)
    assert old["holds_per_op"] == pytest.approx(20_000 / 17_000 / 20_000 * 40_000 / 4)


def _read_hold(cpu, t_enter, t_acq, t_rel):
    """A page fault that fell back to mmap_read_lock: down_read_killable from lock_mm_and_find_vma,
    asleep until t_acq, released by the fault's mmap_read_unlock (up_read into exc_page_fault)."""
    return [_at(t_enter - 10, cpu, "lock_mm_and_find_vma", 20), _at(t_enter, cpu, "down_read_killable"),
            _at(t_enter + 10, cpu, "rwsem_down_read_slowpath"), _at(t_acq - 10, cpu, "down_read_killable", 34, "ret"),
            _at(t_acq, cpu, "lock_mm_and_find_vma", 40), _at(t_acq + 10, cpu, "handle_mm_fault"),
            _at(t_rel, cpu, "up_read"), _at(t_rel + 10, cpu, "up_read", 20, "ret"), _at(t_rel + 20, cpu, "exc_page_fault", 90)]


def test_a_faults_read_hold_of_mmap_lock_and_the_locks_cycle_are_measured():
    # CPU 0 writes (mmap) 1,000-6,000; CPUs 1 and 2 fault, asking at 2,000 and 3,000, and run with
    # the read side 9,000-12,000 and 9,500-11,000 (overlapping); CPU 3 writes again 12,500-14,000
    # after waiting from 4,000.  Written: 5,000 + 1,500; queued for while no writer held it: CPU 0's
    # 500 ticks in the slow path, then 6,000-12,500 (free until 9,000, then read-held with CPU 3 asleep).
    lines = _sorted(_write_hold(0, 500, 1_000, "vm_mmap_pgoff", 6_000) + _read_hold(1, 2_000, 9_000, 12_000)
                    + _read_hold(2, 3_000, 9_500, 11_000) + _write_hold(3, 4_000, 12_500, "__vm_munmap", 14_000))
    acq, iv = [], []
    sp = lockholds.spans(lines, [(0, 100_000)], window_ticks=50_000, period_ticks=100_000, acquired=acq, intervals=iv)
    got = {(s["cpu"], s["kind"]): (s["hold"], s["handoff"]) for s in sp}
    assert got == {(0, "rwsem-write"): (5_000, None), (1, "rwsem-read"): (3_000, 3_000),
                   (2, "rwsem-read"): (1_500, 3_500), (3, "rwsem-write"): (1_500, 500)}
    occ = lockholds.occupancy(iv, [(0, 100_000)], 50_000, 100_000)
    assert occ[(0, "mmap_lock")] == {"held": 6_500, "waiting": 7_000, "read": 3_000, "traced": 50_000}
    (row,) = [r for r in lockholds.cycle_rows(occ, acq, 0, tick_per_cycle=10.0, roi_ticks=100_000, ops=8)
              if r["site"] == "mmap_lock"]
    assert row["holds"] == 4 and row["holds_per_op"] == pytest.approx(4 / 50_000 * 100_000 / 8)
    assert row["hold_cycles"] == pytest.approx(6_500 / 4 / 10) and row["handoff_cycles"] == pytest.approx(7_000 / 40)
    assert row["held"] == pytest.approx(0.13) and row["waiting"] == pytest.approx(0.14)


def test_the_locks_cycle_counts_spans_cut_by_their_window_and_waits_across_windows():
    # windows [0, 50,000) and [100,000, 150,000): a hold released at 30,000 whose acquisition was
    # before the window, a wait from 40,000 that ends in the next window at 101,000 (its hold cut
    # open at the end of the trace: held to the window's end)
    head = [_at(29_990, 0, "vms_complete_munmap_vmas", 40), _at(30_000, 0, "up_write"),
            _at(30_010, 0, "up_write", 20, "ret"), _at(30_020, 0, "vm_mmap_pgoff", 90)]
    b = _write_hold(1, 40_000, 101_000, "__vm_munmap", 160_000)[:-4]
    iv = []
    lockholds.spans(_sorted(head + b), [(0, 200_000)], 50_000, 100_000, intervals=iv)
    occ = lockholds.occupancy(iv, [(0, 200_000)], 50_000, 100_000)[(0, "mmap_lock")]
    assert occ == {"held": 30_000 + 49_000, "waiting": 10_000 + 1_000, "read": 0, "traced": 100_000}


def test_readers_that_overlap_with_no_one_queued_are_no_queue():
    """Faults under a lock taken only for reading (rwlock's mmap_lock): fast-path acquisitions, holds
    that overlap; nobody sleeps, so the lock's cycle is empty and only its read time is reported."""
    def fast_read(cpu, t_acq, t_rel):
        return [_at(t_acq - 30, cpu, "do_user_addr_fault", 20), _at(t_acq - 20, cpu, "down_read"),
                _at(t_acq - 10, cpu, "down_read", 30, "ret"), _at(t_acq, cpu, "do_user_addr_fault", 40),
                _at(t_rel, cpu, "up_read"), _at(t_rel + 10, cpu, "up_read", 20, "ret"),
                _at(t_rel + 20, cpu, "do_user_addr_fault", 90)]
    lines = _sorted(fast_read(0, 1_000, 5_000) + fast_read(1, 2_000, 7_000) + fast_read(2, 8_000, 9_000))
    iv, acq = [], []
    sp = lockholds.spans(lines, [(0, 100_000)], 50_000, 100_000, acquired=acq, intervals=iv)
    assert sorted(s["hold"] for s in sp) == [1_000, 4_000, 5_000] and {s["kind"] for s in sp} == {"rwsem-read"}
    occ = lockholds.occupancy(iv, [(0, 100_000)], 50_000, 100_000)
    assert occ[(0, "mmap_lock")] == {"held": 0, "waiting": 0, "read": 7_000, "traced": 50_000}


def test_a_queued_spinlocks_handoff_from_the_release_to_the_waiter_that_takes_it():
    """CPU 1 queues (slow path) while CPU 0 holds the lock; from CPU 0's unlock to CPU 1's return
    from the lock is the hand-off.  CPU 0 took it free (no slow path): none for its hold."""
    a = [_line(1000, 0, "filemap_get_read_batch"), _line(1010, 0, "_raw_spin_lock_irqsave"),
         _line(1020, 0, "filemap_get_read_batch", 40), _line(3020, 0, "_raw_spin_unlock_irqrestore"),
         _line(3030, 0, "filemap_get_read_batch", 60)]
    b, start = _hold(1, 1500, "filemap_get_read_batch", ["xas_load"], hold=1000, wait=2300)
    sp = lockholds.spans(_sorted(a + b), [(0, 100_000)], window_ticks=20_000)
    got = {s["cpu"]: (s["hold"], s.get("handoff")) for s in sp}
    assert got == {0: (2000, None), 1: (1000, start - 3020)}
    rows = {r["site"]: r for r in lockholds.summary(sp, 20_000, tick_per_cycle=10.0)}
    assert rows["filemap_get_read_batch"]["handoffs"] == 1
    assert rows["filemap_get_read_batch"]["handoff_cycles"] == pytest.approx((start - 3020) / 10, rel=0.01)


def test_a_spinlock_release_whose_hold_began_before_the_window_is_named_by_its_caller():
    """The release of a hold whose acquisition the window missed still times the next waiter's
    hand-off: its lock is the function the unlock returns into (one lock, by lock_of)."""
    a = [_at(1000, 0, "filemap_get_read_batch", 50), _at(1010, 0, "_raw_spin_unlock_irqrestore"),
         _at(1020, 0, "_raw_spin_unlock_irqrestore", 8, "ret"), _at(1030, 0, "filemap_get_read_batch", 60)]
    b, start = _hold(1, 500, "filemap_get_entry", ["xas_load"], hold=700, wait=900)
    sp = lockholds.spans(_sorted(a + b), [(0, 100_000)], window_ticks=20_000)
    assert [(s["site"], s["handoff"]) for s in sp] == [("filemap_get_entry", start - 1010)]


def test_a_spinlock_release_does_not_time_a_sleeping_locks_handoff():
    """lock_of names a lock by the function that takes it, and one function may take a spinlock and
    mmap_lock: a spinlock released in `__vm_munmap` while a writer of mmap_lock sleeps is not the
    release that writer waited for (only mmap_lock's own release, at 6,000, is)."""
    a = _write_hold(0, 500, 1_000, "vm_mmap_pgoff", 6_000)
    b = _write_hold(1, 2_000, 9_000, "__vm_munmap", 12_000, unlock="up_read", downgrade_at=10_000)
    spin, _ = _hold(2, 7_000, "__vm_munmap", ["work"], hold=500, wait=20)       # released at 7,530
    sp = lockholds.spans(_sorted(a + b + spin), [(0, 100_000)], window_ticks=50_000, period_ticks=100_000)
    got = {(s["site"], s["kind"]): s["handoff"] for s in sp}
    assert got[("__vm_munmap", "rwsem-write")] == 3_000
