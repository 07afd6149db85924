"""The vmscale X86 board for gem5 v24: X86Board plus an ACPI MADT, /dev/sda, APIC IDs in CPUID.

Runs only inside gem5 (`$GEM5 sim-configs/vmscale_fs.py ...`).  Why each change:
- MADT: X86Board v24.0 publishes only the Intel MP table; Linux 6.12 also reads ACPI and
  logs "Invalid table length" for the empty RSDT/XSDT.  The records mirror the MP table
  (LAPIC i = core i, one I/O APIC with id = cores at 0xFEC00000, ISA IRQ overrides).
- /dev/sda: Linux >= 5.14 has no legacy IDE driver; with ATA_PIIX the disk is sda, not hda.
- CPUID.1 EBX[31:24]: gem5's static CPUID reports APIC ID 0 on every core; Linux prints an
  "APIC ID mismatch" firmware bug per CPU.  Each core has its own ISA object, so set it.
"""

from m5.objects import (
    X86ACPIMadt,
    X86ACPIMadtIntSourceOverride,
    X86ACPIMadtIOAPIC,
    X86ACPIMadtLAPIC,
)

from gem5.components.boards.x86_board import X86Board


class VmscaleX86Board(X86Board):
    def _setup_io_devices(self):
        super()._setup_io_devices()
        n = self.get_processor().get_num_cores()
        records = [X86ACPIMadtLAPIC(acpi_processor_id=i, apic_id=i, flags=1) for i in range(n)]
        # X86Board gives the I/O APIC id = number of cores (x86_board.py, _setup_io_devices).
        records.append(X86ACPIMadtIOAPIC(id=n, address=0xFEC00000, int_base=0))
        records.append(X86ACPIMadtIntSourceOverride(bus_source=0, irq_source=0, sys_int=2, flags=0))
        madt = X86ACPIMadt(local_apic_address=0, records=records, oem_id="vmscl")
        rsdp = self.workload.acpi_description_table_pointer
        rsdp.rsdt.entries.append(madt)
        rsdp.xsdt.entries.append(madt)

    def get_disk_device(self):
        return "/dev/sda"

    def fix_cpuid_apic_ids(self):
        """Report each core's APIC ID in CPUID.1 EBX (call after the processor exists)."""
        for i, core in enumerate(self.get_processor().get_cores()):
            for isa in core.get_simobject().isa:
                fms = list(isa.FamilyModelStepping)
                fms[1] = (int(fms[1]) & 0x00FFFFFF) | (i << 24)
                isa.FamilyModelStepping = fms
