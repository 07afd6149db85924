"""Queueing models of contended cache lines and locks (pure Python; no gem5, no backends).

- network: what a model is (think time, stations, interconnect laws)
- des: the SimPy discrete-event simulation
- solvers: Piggin's closed form, exact MVA, Amdahl and USL
- fit: fitting to result tables, hold-out validation, extrapolation with bands
- plot: figures
"""
