#!/usr/bin/python3
"""A second reference for the lattice suites, in numpy (docs/METHODOLOGY.md, "A second reference").

    tests/ref/dslash.py [--mutant NAME] DIR SUITE

Reads what `ppbench-worker run` wrote with PPBENCH_TEST_DUMP=DIR (kernels/fielddump.h: DIR/SUITE.json and one
file of binary64 reals per array), recomputes the operator on the whole lattice from the papers' definitions
and compares both outputs the worker read back from the device (the warm-up's and the last sample's) at every
output site. It shares no code with the C reference or the kernels: neighbours come from numpy.roll on the
lattice axes, the odd sites and their checkerboard order from the coordinates, the gamma matrices are written
out below.

Wilson (paper 000, Eq. 1), with ppbench's normalisation (twice the paper's, P = (1 -+ gamma) instead of
(1 -+ gamma) / 2; METHODOLOGY "Operator"), the DeGrand-Rossi basis:
    D psi(x) = sum_mu (1 - g_mu) U_mu(x) psi(x + mu) + (1 + g_mu) U_mu(x - mu)^dagger psi(x - mu)
Staggered (paper 001, Eq. 1 with the third-neighbour terms the paper describes; fat links U, long links W):
    C(x) = sum_k U_k(x) B(x + k) + W_k(x) B(x + 3k) - U_k(x - k)^dagger B(x - k) - W_k(x - 3k)^dagger B(x - 3k)
Both on the odd sites ((x + y + z + t) odd), periodic.

Tolerance: the C verification's, 100 epsilon of the working precision times a per-site scale, the sum over the
site's neighbour terms of the 2-norm of the neighbour's field (which bounds every output component with unitary
links; METHODOLOGY "Verification"). The inputs are the double fields as generated: the kernel's rounding of them
to fp32 is inside that bound.

--mutant NAME computes a deliberately wrong operator instead (projector: (1 + g) forward and (1 - g) backward,
i.e. D-dagger; gamma: gamma_t negated; hop: the forward hop reads x - mu; backward: the backward terms added
instead of subtracted (staggered); third: the long links reach 2 sites instead of 3), so that a test can prove
the comparison tells the kernel's operator from each of these.

Prints one line per output: "ok SUITE OUTPUT: max error E of the site scale <= T (N sites)", or
"FAIL SUITE OUTPUT: ..." naming the worst site (x, y, z, t), component, value and expected value. Exits 0 when
every output agrees, 1 when one does not, 2 on bad input.
"""
import json
import sys

import numpy as np

MUTANTS = {"wilson": ("projector", "gamma", "hop"), "staggered": ("backward", "third", "hop")}
EPSILON = {"fp32": float(np.finfo(np.float32).eps), "fp64": float(np.finfo(np.float64).eps)}
TOLERANCE_EPS = 100

# DeGrand-Rossi gamma matrices (Chroma/QDP++'s chiral basis), x, y, z, t: docs/METHODOLOGY.md "Gamma basis".
I = 1j
GAMMA = np.array([
    [[0, 0, 0, I], [0, 0, I, 0], [0, -I, 0, 0], [-I, 0, 0, 0]],
    [[0, 0, 0, -1], [0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0]],
    [[0, 0, I, 0], [0, 0, 0, -I], [-I, 0, 0, 0], [0, I, 0, 0]],
    [[0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0]],
], dtype=complex)


def check_gammas():
    """The basis is a Dirac algebra (Hermitian, anticommuting, squares 1) with gamma_5 = diag(1, 1, -1, -1)."""
    one = np.eye(4)
    for m in range(4):
        assert np.array_equal(GAMMA[m], GAMMA[m].conj().T), "gamma_%d is not Hermitian" % m
        for n in range(4):
            anti = GAMMA[m] @ GAMMA[n] + GAMMA[n] @ GAMMA[m]
            assert np.array_equal(anti, 2 * one * (m == n)), "gammas %d, %d do not anticommute" % (m, n)
    g5 = GAMMA[0] @ GAMMA[1] @ GAMMA[2] @ GAMMA[3]
    assert np.array_equal(g5, np.diag([1, 1, -1, -1])), "gamma_5 is not diag(1, 1, -1, -1)"


def axis_of(mu):
    """Direction mu (0 = x .. 3 = t) as an axis of a [t, z, y, x, ...] array."""
    return 3 - mu


def shift(field, mu, d):
    """field(x + d mu-hat) at every x, periodic."""
    return np.roll(field, -d, axis=axis_of(mu))


def complex_field(a):
    """[..., 2] reals (re, im) as complex."""
    return a[..., 0] + 1j * a[..., 1]


def dagger(u):
    return np.conj(np.swapaxes(u, -1, -2))


def mat_vec(u, v):
    """Per site: u [..., 3, 3] times each colour vector of v [..., 3] or [..., s, 3]."""
    if v.ndim == u.ndim - 1:
        return np.einsum("...ab,...b->...a", u, v)
    return np.einsum("...ab,...sb->...sa", u, v)


def wilson(fields, mutant):
    u, psi = fields["u"], fields["psi"]  # [t, z, y, x, mu, 3, 3], [t, z, y, x, spin, 3]
    gamma = GAMMA.copy()
    if mutant == "gamma":
        gamma[3] = -gamma[3]
    fwd, bwd = (+1, -1) if mutant == "projector" else (-1, +1)
    out = np.zeros_like(psi)
    scale = np.zeros(psi.shape[:4])
    one = np.eye(4)
    for mu in range(4):
        ahead = shift(psi, mu, -1 if mutant == "hop" else +1)
        behind = shift(psi, mu, -1)
        chi_f = mat_vec(u[..., mu, :, :], ahead)
        chi_b = mat_vec(dagger(shift(u[..., mu, :, :], mu, -1)), behind)
        out += np.einsum("st,...tc->...sc", one + fwd * gamma[mu], chi_f)
        out += np.einsum("st,...tc->...sc", one + bwd * gamma[mu], chi_b)
        scale += norm(ahead) + norm(behind)
    return out, scale


def staggered(fields, mutant):
    fat, lng, b = fields["fat"], fields["long"], fields["b"]  # [t, z, y, x, k, 3, 3], the same, [t, z, y, x, 3]
    reach = 2 if mutant == "third" else 3
    back = +1 if mutant == "backward" else -1
    out = np.zeros_like(b)
    scale = np.zeros(b.shape[:4])
    for k in range(4):
        for links, d in ((fat, 1), (lng, reach)):
            ahead = shift(b, k, -d if mutant == "hop" else d)
            behind = shift(b, k, -d)
            out += mat_vec(links[..., k, :, :], ahead)
            out += back * mat_vec(dagger(shift(links[..., k, :, :], k, -d)), behind)
            scale += norm(ahead) + norm(behind)
    return out, scale


def norm(v):
    """The 2-norm of each site's field (over every axis after the four site axes)."""
    return np.sqrt((np.abs(v) ** 2).reshape(v.shape[:4] + (-1,)).sum(axis=-1))


def odd_sites(lattice):
    """The odd sites' coordinates (t, z, y, x) in lexicographic order, the order of the checkerboard index s / 2."""
    X, Y, Z, T = lattice
    t, z, y, x = np.meshgrid(np.arange(T), np.arange(Z), np.arange(Y), np.arange(X), indexing="ij")
    odd = (x + y + z + t) % 2 == 1
    return t[odd], z[odd], y[odd], x[odd]


def die(message):
    """Bad input: the message on stderr, exit status 2."""
    print(message, file=sys.stderr)
    sys.exit(2)


def load(dir, suite):
    try:
        meta = json.load(open("%s/%s.json" % (dir, suite)))
    except (OSError, ValueError) as e:
        die("%s: no dump: %s" % (suite, e))
    if meta.get("byte_order") != sys.byteorder:
        die("%s: written in %s byte order, this host is %s" % (suite, meta.get("byte_order"), sys.byteorder))
    arrays = {}
    for name, a in meta["arrays"].items():
        try:
            data = np.fromfile("%s/%s" % (dir, a["file"]), dtype=np.float64)
        except OSError as e:
            die("%s: %s" % (suite, e))
        if data.size != np.prod(a["shape"]):
            die("%s: %s holds %d reals, its shape %s needs %d" % (suite, a["file"], data.size, a["shape"],
                                                                      np.prod(a["shape"])))
        arrays[name] = complex_field(data.reshape(a["shape"]))
    return meta, arrays


def compare(suite, name, got, ref, scale, sites, tol):
    """got [V/2, ...] in checkerboard order against ref [t, z, y, x, ...] at the odd sites."""
    t, z, y, x = sites
    want, s = ref[t, z, y, x], scale[t, z, y, x]
    comps = got.reshape(len(t), -1)
    err = np.abs(comps - want.reshape(len(t), -1))
    err = np.where(np.isnan(err), np.inf, err) / s[:, None]
    worst = np.unravel_index(np.argmax(err), err.shape)
    e = err[worst]
    if e <= tol:
        print("ok %s %s: max error %.3g of the site scale <= %.3g (%d sites)" % (suite, name, e, tol, len(t)))
        return True
    i, c = worst
    print("FAIL %s %s: site (%d,%d,%d,%d) [odd index %d] component %d = %s, expected %s (error %.3g of the site "
          "scale > %.3g)" % (suite, name, x[i], y[i], z[i], t[i], i, c, comps[i, c], want.reshape(len(t), -1)[i, c],
                             e, tol))
    return False


def main():
    args = sys.argv[1:]
    mutant = None
    if len(args) >= 2 and args[0] == "--mutant":
        mutant, args = args[1], args[2:]
    if len(args) != 2 or args[1] not in ("wilson", "staggered"):
        die("usage: tests/ref/dslash.py [--mutant NAME] DIR wilson|staggered")
    dir, suite = args
    if mutant is not None and mutant not in MUTANTS[suite]:
        die("%s has no mutant %s (it has: %s)" % (suite, mutant, ", ".join(MUTANTS[suite])))
    check_gammas()
    meta, fields = load(dir, suite)
    ref, scale = (wilson if suite == "wilson" else staggered)(fields, mutant)
    sites = odd_sites(meta["lattice"])
    tol = TOLERANCE_EPS * EPSILON[meta["precision"]]
    ok = True
    for name in ("out_warmup", "out"):
        ok = compare(suite, name, fields[name], ref, scale, sites, tol) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
