# SPDX-License-Identifier: GPL-2.0-only
"""A client of the nxsim driver's line protocol (docs/driver.md).

As QEMU's qtest client drives qemu over its socket, this drives one
``nxsim -`` process over a pipe: one method call a verb, one answer a
call, parsed to a dict; an ``ERR`` answer raises :class:`NxsimError` with
the errno and the reason.  Scripts with ``expect`` lines and comments run
through :meth:`Nxsim.run_script`.

    from nxsim import Nxsim
    with Nxsim() as nx:
        nx.host_create("h0", profile="6.1", cpu="itlb_multihit")
        nx.param_set("nx_huge_pages", "never\\n")
        print(nx.param_get("nx_huge_pages").values)     # ['never\\n']
"""
from .client import Answer, Nxsim, NxsimError, NxsimExpectError
from .words import quote, split

__all__ = ["Answer", "Nxsim", "NxsimError", "NxsimExpectError", "quote",
           "split"]
__version__ = "0.1.0"
