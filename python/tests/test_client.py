# SPDX-License-Identifier: GPL-2.0-only
"""The Python client against the real driver ($NXSIM, ctest python.client):
answers parsed to dicts, ERR raised with errno and reason, expect lines
and comments in scripts, quoting that round-trips, the verbs of --help."""
import errno

import pytest

from nxsim import Nxsim, NxsimError, NxsimExpectError, quote, split


@pytest.fixture
def nx():
    with Nxsim() as client:
        yield client


def test_ok_answer_is_a_dict(nx):
    a = nx.host_create("h0", profile="6.1", cpu="itlb_multihit")
    assert a == {"profile": "6.1"}
    assert a.line == "OK profile=6.1"
    nx.vm_create("v1")
    st = nx.stat("v1")
    assert set(st) >= {"pages_4k", "pages_2m", "pages_1g"}
    assert st.num("pages_4k") == 0


def test_values_without_keys(nx):
    a = nx.errno("EPERM")
    assert a.values == ["-EPERM", "-1", "Operation not permitted"]
    assert dict(a) == {}


def test_strings_round_trip(nx):
    nx.host_create("h0")
    nx.param_set("nx_huge_pages", "never\n")
    assert nx.param_get("nx_huge_pages").values == ["never\n"]


def test_err_raises_errno_and_reason(nx):
    nx.host_create("h0")
    nx.vm_create("v1")
    with pytest.raises(NxsimError) as e:
        nx.memslot_add("v1", 0, 0x1001, 0x1000)
    assert e.value.errno == -errno.EINVAL
    assert e.value.name == "-EINVAL"
    assert e.value.reason == \
        "guest_phys_addr 0x1001 is not a multiple of 4096"
    assert e.value.line is None
    assert e.value.command == "memslot add v1 0 4097 4096"


def test_script_error_names_the_line(nx):
    with pytest.raises(NxsimError) as e:
        nx.cmd("vm create v1")
    assert e.value.errno == -errno.ENOENT
    assert e.value.line == 1
    assert e.value.reason.startswith("no current host")
    # check=False hands the error back instead
    err = nx.cmd("vm create v1", check=False)
    assert isinstance(err, NxsimError) and err.line == 2


def test_run_script_expects_and_comments(nx):
    answers = nx.run_script(
        "# a comment, then a blank line\n"
        "\n"
        "host create h0 profile=6.1   # trailing comment\n"
        "expect OK profile=6.1\n"
        "param set nx_huge_pages \"never\\n\"\n"
        "expect OK\n"
        "vm create v1\n"
        "param set nx_huge_pages force\n"
        "expect ERR -EPERM\n"
        "errno 2\n"
        "expect OK -ENOENT * ...\n")
    assert [isinstance(a, NxsimError) for a in answers] == \
        [False, False, False, True, False]
    assert answers[3].errno == -errno.EPERM
    with pytest.raises(NxsimExpectError) as e:
        nx.run_script("errno 1\nexpect OK -ENOENT ...\n")
    assert e.value.lineno == 2
    assert e.value.got.startswith("OK -EPERM")


def test_expect_rules(nx):
    with pytest.raises(NxsimExpectError):
        nx.expect("OK")
    nx.errno("EPERM")
    nx.expect("OK")
    nx.expect("OK", "-EPERM", "*", "Operation not permitted")
    nx.expect("OK", "-EPERM", "...")
    with pytest.raises(NxsimExpectError):
        nx.expect("OK", "-EPERM")
    nx.cmd("host destroy nope", check=False)
    nx.expect("ERR", "-ENOENT")


def test_verbs_come_from_help(nx):
    assert "trace_replay_tlb" in dir(nx)
    assert "host_create" in dir(nx)
    with pytest.raises(AttributeError):
        nx.no_such_verb()


def test_close_returns_the_status():
    nx = Nxsim()
    nx.host_create("h0")
    assert nx.close() == 0


@pytest.mark.parametrize("value, word", [
    ("6.1", "6.1"), ("never\n", '"never\\n"'), ("a b", '"a b"'),
    ("", '""'), ("#x", '"#x"'), ('q"', '"q\\""'), (True, "1"), (42, "42"),
    ("\x01", '"\\001"'),
])
def test_quote_round_trips(value, word):
    assert quote(value) == word
    assert split(word) == [str(int(value) if isinstance(value, bool)
                               else value)]


def test_split_errors():
    with pytest.raises(ValueError):
        split('"open')
    with pytest.raises(ValueError):
        split('"\\q"')
    assert split('a"b c"d # comment') == ["ab cd"]
    assert split('"\\x41\\101"') == ["AA"]
