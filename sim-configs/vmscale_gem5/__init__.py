"""Pure-Python decisions behind the gem5 configurations (importable without gem5).

- limits: which core counts a board, protocol and gem5 build support
- topology: interconnects as plain graphs (routers, links, weights, controller placement)
- stats: parse gem5 stats.txt dumps and derive per-ROI metrics
- configini: what a run's config.ini says (cores, CPU model, protocol)
"""
