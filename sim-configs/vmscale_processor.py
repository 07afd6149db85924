"""A processor that runs the ROIs on one CPU model and the rest of a restored run on another.

An O3 run spends most of its host time outside its ROIs: the run script's set-up before the first
workbegin and the guest's tear-down after the last workend (10 cores: a 2 ms ROI, then 25 ms of
exits and output that O3 takes two hours over).  Those instructions are not measured, so they may
run on a faster timing-mode CPU.  The measured cores keep the name SimpleProcessor gives them
(`cores`), so a checkpoint made with a SimpleProcessor restores into them and the statistics
parser (vmscale_gem5.stats) reads the same paths; the other set is `tail`.  Both sets use timing
memory mode, so a switch is a drain and a hand-over of the threads' state (m5.switchCpus).
"""

from gem5.components.boards.mem_mode import MemMode
from gem5.components.processors.cpu_types import CPUTypes
from gem5.components.processors.simple_core import SimpleCore
from gem5.components.processors.switchable_processor import SwitchableProcessor
from gem5.isas import ISA

ROI, TAIL = "cores", "tail"


class TailProcessor(SwitchableProcessor):
    def __init__(self, roi_type: CPUTypes, tail_type: CPUTypes, num_cores: int, isa: ISA):
        # Restored into the ROI cores (the checkpoint's paths); the config switches to the tail
        # cores right after the restore.
        super().__init__(
            switchable_cores={key: [SimpleCore(cpu_type=t, core_id=i, isa=isa) for i in range(num_cores)]
                              for key, t in ((ROI, roi_type), (TAIL, tail_type))},
            starting_cores=ROI)
        self._on = ROI

    def incorporate_processor(self, board) -> None:
        super().incorporate_processor(board=board)
        board.set_mem_mode(MemMode.TIMING)

    def core_sets(self) -> list:
        """Every set's cores, each list indexed by core id (what per-core ISA settings need)."""
        return list(self._switchable_cores.values())

    def use(self, key: str) -> bool:
        """Switch to ROI or TAIL cores; False if they are running already."""
        if key == self._on:
            return False
        self.switch_to_processor(key)
        self._on = key
        return True
