"""Benchmark of the queueing model (prints figures; not a test): MVA to 4096 cores,
the DES at 1024 cores, and a full fit with hold-out and bands.

    python queueing-model/bench.py
Targets: MVA < 10 ms, DES at 1024 cores < 10 s (default run length), fit in seconds.
"""

import time

from vmscale_model import des, fit, network, solvers


def timed(label, fn):
    t = time.perf_counter()
    out = fn()
    print(f"{label:48s} {1000 * (time.perf_counter() - t):10.1f} ms")
    return out


def main():
    model = network.single_line(think=10.0, service=1.0)
    x = timed("MVA, one line, N = 4096", lambda: solvers.mva_throughput(model, 4096))
    print(f"    throughput {x:.6f} (ceiling 1/S = 1)")
    r = timed("DES, one line, N = 1024, 50,000 ops (default)", lambda: des.simulate(model, 1024))
    print(f"    throughput {r.throughput:.4f}, p99 latency {r.latency_p99:.1f}")
    rows = [{"cores": n, "throughput": des.simulate(model, n, ops=20_000, seed=s).throughput}
            for n in (1, 2, 4, 8, 16, 32) for s in (1, 2)]
    data = fit.prepare(rows)
    f = timed("fit (think, service) on 6 core counts", lambda: fit.fit(data))
    h = timed("hold-out fit (2 largest held out)", lambda: fit.holdout(data, 2))
    timed("bands to 4096 cores, 4 laws x 200 samples",
          lambda: [f.band([64, 256, 1024, 4096], law) for law in network.LAWS])
    print(f"    fitted think {f.params()['think']:.3f} service {f.params()['service']:.3f}; "
          f"hold-out max error {100 * h['max_abs_relative_error']:.1f}%")


if __name__ == "__main__":
    main()
