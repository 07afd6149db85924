"""vmscale: build, run and collect scalable-VM experiments (kernel + guest + backends)."""

__version__ = "0.1.0"
