#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Writes the MMU x guest-mode scripts of tests/kernel/ (tdp-, legacy-,
# shadow- x nonpaging, 32bit, pae, 64bit): the same faults under each.
#   python3 tests/kernel/modes.py
import os

out = os.path.dirname(os.path.abspath(__file__))
mmus = {
    "tdp": ("amd", "kvm.nx_huge_pages=force", "the TDP MMU"),
    "legacy": ("amd", "kvm.nx_huge_pages=force kvm.tdp_mmu=0",
               "the legacy MMU (kvm.tdp_mmu=0: TDP through the shadow MMU's direct map)"),
    "shadow": ("amd,no_tdp", "kvm.nx_huge_pages=force", "shadow paging (kvm_amd.npt=0)"),
}
def tables(mode):
    if mode == "32bit":
        t = ["# PD 0x1000: two 4M pages (P|W|U|PS) at 0x40000000, a PT at 0x2000",
             "# for 0x40800000 (4K pages)",
             "guest write v1 0x1400 0x40000087 size=4",
             "guest write v1 0x1404 0x40400087 size=4",
             "guest write v1 0x1408 0x2007 size=4"]
        t += ["guest write v1 0x%x 0x%x size=4" % (0x2000 + 4 * i, 0x40800007 + i * 0x1000) for i in range(8)]
        t += ["guest paging c0 pg=1 wp=1 pse=1 cr3=0x1000"]
        return t
    if mode == "pae":
        t = ["# PDPT 0x1000 (entry 1: 0x40000000) -> PD 0x2000: four 2M pages, a",
             "# PT at 0x3000 for 0x40800000",
             "guest write v1 0x1008 0x2001",
             "guest write v1 0x2000 0x40000087",
             "guest write v1 0x2008 0x40200087",
             "guest write v1 0x2010 0x40400087",
             "guest write v1 0x2018 0x40600087",
             "guest write v1 0x2020 0x3007"]
        t += ["guest write v1 0x%x 0x%x" % (0x3000 + 8 * i, 0x40800007 + i * 0x1000) for i in range(8)]
        t += ["guest paging c0 pg=1 wp=1 pae=1 nxe=1 cr3=0x1000"]
        return t
    if mode == "64bit":
        t = ["# PML4 0x1000 -> PDPT 0x2000 (entry 1) -> PD 0x3000: four 2M pages,",
             "# a PT at 0x4000 for 0x40800000",
             "guest write v1 0x1000 0x2007",
             "guest write v1 0x2008 0x3007",
             "guest write v1 0x3000 0x40000087",
             "guest write v1 0x3008 0x40200087",
             "guest write v1 0x3010 0x40400087",
             "guest write v1 0x3018 0x40600087",
             "guest write v1 0x3020 0x4007"]
        t += ["guest write v1 0x%x 0x%x" % (0x4000 + 8 * i, 0x40800007 + i * 0x1000) for i in range(8)]
        t += ["guest paging c0 pg=1 wp=1 pae=1 lma=1 nxe=1 cr3=0x1000"]
        return t
    return []
modes = {"nonpaging": "paging off", "32bit": "32-bit paging with PSE (4M pages)",
         "pae": "PAE paging", "64bit": "4-level paging"}
for mmu, (cpu, cmdline, what) in mmus.items():
    for mode, mwhat in modes.items():
        name = "%s-%s.nxs" % (mmu, mode)
        L = ["# SPDX-License-Identifier: GPL-2.0-only", "#",
             "# %s, a guest with %s: read, exec and write" % (what[0].upper() + what[1:], mwhat),
             "# faults in huge guest pages over a hugetlb 2M slot and in 4K guest",
             "# pages over a 4K slot, nx_huge_pages=force; every stat after each.",
             "# (generated with tests/kernel/modes.py; the guest maps gva = gpa)",
             "host create h0 profile=6.1 cpu=%s cmdline=\"%s\"" % (cpu, cmdline),
             "param get tdp_mmu", "param get npt",
             "vm create v1", "vcpu create c0 v1 0",
             "memslot add v1 0 0 0x10000",
             "memslot add v1 1 0x40000000 0x800000 level=2m",
             "memslot add v1 2 0x40800000 0x200000"]
        L += tables(mode)
        L += ["vcpu run c0", "stat v1"]
        L += ["kstat v1", "kstat c0"]
        for kind, addr in (("read", 0x40000000), ("exec", 0x40201000), ("write", 0x40402000),
                           ("exec", 0x40000000), ("write", 0x40203000),
                           ("exec", 0x40801000), ("read", 0x40802000), ("write", 0x40803000),
                           ("write", 0x40801000), ("read", 0x40600000)):
            L += ["access c0 %s 0x%x" % (kind, addr), "stat v1", "kstat v1"]
        L += ["kstat c0"]
        open(os.path.join(out, name), "w").write("\n".join(L) + "\n")
