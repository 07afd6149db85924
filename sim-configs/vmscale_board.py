"""The vmscale X86 board for gem5 v24: X86Board plus an ACPI MADT, /dev/sda, APIC IDs in CPUID,
and x2APIC mode where vmscale's gem5 patches provide it.

Runs only inside gem5 (`$GEM5 sim-configs/vmscale_fs.py ...`).  Why each change:
- MADT: X86Board v24.0 publishes only the Intel MP table; Linux 6.12 also reads ACPI and
  logs "Invalid table length" for the empty RSDT/XSDT.  The records mirror the MP table
  (LAPIC i = core i, one I/O APIC at 0xFEC00000, ISA IRQ overrides).  A core whose APIC ID
  does not fit a LAPIC record (0xFF and up; Linux skips LAPIC ID 0xFF) gets a Processor
  Local x2APIC record (type 9, gem5-patches/0001).
- /dev/sda: Linux >= 5.14 has no legacy IDE driver; with ATA_PIIX the disk is sda, not hda.
- CPUID.1 EBX[31:24]: gem5's static CPUID reports APIC ID 0 on every core; Linux prints an
  "APIC ID mismatch" firmware bug per CPU.  Each core has its own ISA object, so set it.
- x2apic=True: CPUID.1 ECX[21] says x2APIC (gem5-patches/0003 then answers leaf 0Bh), the
  I/O APIC takes 15-bit destination IDs (0004), so 0xFF is core 255, not a broadcast, and the
  boot CPU is handed over in x2APIC mode (0006), as firmware does past 254 APIC IDs: Linux
  takes the MADT's x2APIC records only if it finds x2APIC on.  The kernel is told that
  interrupts reach every CPU by `x2apic_ext_dest_id` (kernel 0043; options.kernel_args).
"""

from m5.objects import (
    X86ACPIMadt,
    X86ACPIMadtIntSourceOverride,
    X86ACPIMadtIOAPIC,
    X86ACPIMadtLAPIC,
)

from gem5.components.boards.x86_board import X86Board

X2APIC_FEATURE = 1 << 21     # CPUID.01H:ECX
XAPIC_ID_LIMIT = 0xFF        # LAPIC records hold IDs below this


class VmscaleX86Board(X86Board):
    def __init__(self, *args, x2apic: bool = False, **kwargs):
        self._x2apic = x2apic      # read by _setup_io_devices, which X86Board's __init__ calls
        super().__init__(*args, **kwargs)

    def _setup_io_devices(self):
        super()._setup_io_devices()
        n = self.get_processor().get_num_cores()
        io_apic = self.pc.south_bridge.io_apic
        records = [X86ACPIMadtLAPIC(acpi_processor_id=i, apic_id=i, flags=1)
                   for i in range(min(n, XAPIC_ID_LIMIT))]
        if n > XAPIC_ID_LIMIT:
            from m5.objects import X86ACPIMadtLx2APIC   # vmscale's gem5 patches only
            records += [X86ACPIMadtLx2APIC(acpi_processor_uid=i, x2apic_id=i, flags=1)
                        for i in range(XAPIC_ID_LIMIT, n)]
        if self._x2apic:
            io_apic.extended_dest_id = True
            self.workload.enable_x2apic = True
        # X86Board chose the I/O APIC's id (x86_board.py, _setup_io_devices): the MADT says the same.
        records.append(X86ACPIMadtIOAPIC(id=int(io_apic.apic_id), address=0xFEC00000, int_base=0))
        records.append(X86ACPIMadtIntSourceOverride(bus_source=0, irq_source=0, sys_int=2, flags=0))
        madt = X86ACPIMadt(local_apic_address=0, records=records, oem_id="vmscl")
        rsdp = self.workload.acpi_description_table_pointer
        rsdp.rsdt.entries.append(madt)
        rsdp.xsdt.entries.append(madt)

    def get_disk_device(self):
        return "/dev/sda"

    def fix_cpuid_apic_ids(self):
        """Report each core's APIC ID in CPUID.1 EBX, and x2APIC in ECX if the board has it
        (call after the processor exists)."""
        proc = self.get_processor()
        sets = proc.core_sets() if hasattr(proc, "core_sets") else [proc.get_cores()]
        for i, core in ((i, c) for cores in sets for i, c in enumerate(cores)):
            for isa in core.get_simobject().isa:
                fms = list(isa.FamilyModelStepping)
                fms[1] = (int(fms[1]) & 0x00FFFFFF) | ((i & 0xFF) << 24)
                if self._x2apic:
                    fms[3] = int(fms[3]) | X2APIC_FEATURE
                isa.FamilyModelStepping = fms
