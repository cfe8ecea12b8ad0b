#!/usr/bin/env python3
"""Linear analysis (section 4, Figs. 2-7) of Zhang, Zhang, Zanoni & Masarati (2022), "Implicit
A-stable time integration methods for multibody system dynamics", Multibody System Dynamics,
doi:10.1007/s11044-021-09806-9: spectral radius rho, percentage amplitude decay AD(%) and
percentage period elongation PE(%) on the undamped oscillator x'' + w^2 x = 0, against
Delta t/(nT), n = 1 for the multistep methods (and the trapezoidal rule) and n = s - 1 implicit
stages for an s-stage ESDIRK, i.e. Omega = w Delta t = 2 pi n Delta t/(nT).

AD(%) = 100 xi_bar and PE(%) = 100 (T_bar - T)/T = 100 (w/w_bar - 1), the amplitude decay ratio
and period elongation ratio of the paper's eq. 22, from the principal root (`dynastep stability`
columns amplitude_decay and period_elongation).

Method sets: the second-order methods with tunable dissipation (LMS2, LMS3, LMS4, Bathe,
MSSTC(3, 4, 5); Figs. 2-4) at rho_inf = 0, 0.5, 0.6 and 1 (the paper does not print the values of
its figures; 0.6 is its section-5 value; LMS3 and LMS4 refuse rho_inf = 1, they are run at 0.999
instead and flagged), the trapezoidal rule, and the higher-order methods (Figs. 5-7): MSSTH(3, 4, 5)
at rho_inf = 0, 0.5 and 1 and the L-stable ESDIRK3(2)4L[2]SA, ESDIRK3(2)5L[2]SA and
ESDIRK4(3)6L[2]SA2 (rho_inf = 0).

Writes docs/figures/msd22-spectral.csv (long format: scheme, rho_inf, n, dt_over_nT,
spectral_radius, AD_percent, PE_percent; Delta t/(nT) from 1e-3 to 1e3, 25 points per decade, and
0.05 and 0.5) and prints the table of key numbers and the checks of the paper's statements quoted
in docs/reproductions.md (section 4).

Usage: DYNASTEP=target/release/dynastep python3 scripts/msd22_spectral.py   (a few seconds)
Needs numpy. Scratch output of the tool goes to a temporary directory.
"""
import csv
import os
import subprocess
import tempfile

import numpy as np

B = os.environ.get("DYNASTEP", "target/release/dynastep")
OUT = os.path.join("docs", "figures", "msd22-spectral.csv")

SECOND = [("lms2", 1), ("lms3", 1), ("lms4", 1), ("bathe", 2),
          ("msstc3", 3), ("msstc4", 4), ("msstc5", 5)]
HIGHER = [("mssth3", 3), ("mssth4", 4), ("mssth5", 5),
          ("esdirk3-4", 3), ("esdirk3-5", 4), ("esdirk4-6", 5)]
NAME = {"lms2": "LMS2", "lms3": "LMS3", "lms4": "LMS4", "bathe": "Bathe", "msstc3": "MSSTC(3)",
        "msstc4": "MSSTC(4)", "msstc5": "MSSTC(5)", "mssth3": "MSSTH(3)", "mssth4": "MSSTH(4)",
        "mssth5": "MSSTH(5)", "esdirk3-4": "ESDIRK3(2)4L[2]SA", "esdirk3-5": "ESDIRK3(2)5L[2]SA",
        "esdirk4-6": "ESDIRK4(3)6L[2]SA2", "trapezoidal": "trapezoidal"}
SECOND_RHO = [0.0, 0.5, 0.6, 1.0]
MSSTH_RHO = [0.0, 0.5, 1.0]
X_MIN, X_MAX, PER_DECADE = 1e-3, 1e3, 50          # analysis grid; the CSV keeps every other point
TABLE_X = [0.01, 0.05, 0.1]


def stability(scheme, rho, n, x_lo, x_hi, points):
    """Runs `dynastep stability` on Delta t/(nT) in [x_lo, x_hi] (log-spaced); returns an array
    of rows (x, rho, AD %, PE %)."""
    with tempfile.TemporaryDirectory() as tmp:
        args = [B, "stability", "--scheme", scheme, "--omega-min", repr(2 * np.pi * n * x_lo),
                "--omega-max", repr(2 * np.pi * n * x_hi), "--points", str(points), "--out", tmp]
        if rho is not None:
            args += ["--param", f"rho_inf={rho}"]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(tmp, "stability.csv")) as f:
            rows = list(csv.DictReader(f))

    def num(s):
        return float(s) if s not in ("", "NaN", "nan") else np.nan
    return np.array([(num(r["omega_h"]) / (2 * np.pi * n), num(r["spectral_radius"]),
                      100 * num(r["amplitude_decay"]), 100 * num(r["period_elongation"]))
                     for r in rows])


def run_rho(scheme, rho):
    """The rho_inf a scheme is run at for the nominal `rho`: LMS3 and LMS4 at 0.999 for 1 (rho_inf
    = 1 is not zero-stable for them)."""
    return 0.999 if (rho == 1.0 and scheme in ("lms3", "lms4")) else rho


def runs():
    """(scheme, nominal rho_inf, n, curve on the fine grid, extra points 0.05 and 0.5)."""
    cfg = []
    for scheme, n in SECOND:
        for rho in SECOND_RHO:
            cfg.append((scheme, run_rho(scheme, rho), n))
    cfg.append(("trapezoidal", 1.0, 1))
    for scheme, n in HIGHER:
        for rho in (MSSTH_RHO if scheme.startswith("mssth") else [0.0]):
            cfg.append((scheme, rho, n))
    points = int(round(np.log10(X_MAX / X_MIN) * PER_DECADE)) + 1
    data = {}
    for scheme, rho, n in cfg:
        param = None if scheme.startswith("esdirk") or scheme == "trapezoidal" else rho
        fine = stability(scheme, param, n, X_MIN, X_MAX, points)
        extra = stability(scheme, param, n, 0.05, 0.5, 2)
        data[(scheme, rho)] = (n, fine, extra)
    return data


def at(data, scheme, rho, x):
    """(rho, AD %, PE %) at Delta t/(nT) = x (a grid point or 0.05/0.5)."""
    n, fine, extra = data[(scheme, rho)]
    rows = np.vstack([fine, extra])
    i = np.argmin(np.abs(np.log(rows[:, 0] / x)))
    assert abs(rows[i, 0] / x - 1) < 1e-9, (scheme, rho, x)
    return rows[i, 1:]


def write_csv(data):
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scheme", "rho_inf", "n", "dt_over_nT", "spectral_radius", "AD_percent",
                    "PE_percent"])
        for (scheme, rho), (n, fine, extra) in data.items():
            rows = np.vstack([fine[::2], extra])
            rows = rows[np.argsort(rows[:, 0])]
            for x, r, ad, pe in rows:
                w.writerow([scheme, rho, n, f"{x:.6g}", f"{r:.10g}", f"{ad:.6g}", f"{pe:.6g}"])


def crossing(fine, level):
    """First Delta t/(nT) at which rho <= level (log-interpolated), or nan."""
    x, r = fine[:, 0], fine[:, 1]
    below = np.nonzero(r <= level)[0]
    if len(below) == 0:
        return np.nan
    i = below[0]
    if i == 0:
        return x[0]
    t = (r[i - 1] - level) / (r[i - 1] - r[i])
    return float(np.exp(np.log(x[i - 1]) + t * np.log(x[i] / x[i - 1])))


def slope(fine, col, lo=0.005, hi=0.02):
    """Log-log slope of |column| against Delta t/(nT) on [lo, hi] (order of the error)."""
    m = (fine[:, 0] >= lo) & (fine[:, 0] <= hi)
    y = np.abs(fine[m, col])
    return np.polyfit(np.log(fine[m, 0]), np.log(y), 1)[0] if np.all(y > 0) else np.nan


def main():
    data = runs()
    write_csv(data)
    print(f"wrote {OUT}\n")

    print("Key numbers: rho / AD % / PE % at Delta t/(nT) =", ", ".join(map(str, TABLE_X)))
    for (scheme, rho), (n, fine, _) in data.items():
        cells = []
        for x in TABLE_X:
            r, ad, pe = at(data, scheme, rho, x)
            cells.append(f"{r:.6f} / {ad:.3g} / {pe:+.3g}")
        print(f"  {NAME[scheme]:19s} rho_inf={rho:<5} n={n}  " + "  |  ".join(cells))

    print("\nA-stability: max rho over [1e-3, 1e3]; order: log-log slope of |PE| on Delta t/(nT) in "
          "[0.003, 0.01] (2 for a second-order method, 4 for orders 3 and 4, 6 for order 5)")
    for (scheme, rho), (n, fine, _) in data.items():
        flag = ("   <- rho > 1 as identified, not in the characteristic polynomial nor in a run: "
                "docs/reproductions.md, section 4" if fine[:, 1].max() > 1 + 1e-6 else "")
        print(f"  {NAME[scheme]:19s} rho_inf={rho:<5} max rho - 1 = {fine[:, 1].max() - 1:+.1e}  "
              f"rho(1e3) = {fine[-1, 1]:.4f}  slope PE {slope(fine, 3, 0.003, 0.01):.2f}{flag}")

    print("\nS3: largest AD % and smallest rho over Delta t/(nT) <= 0.1")
    for rho in SECOND_RHO[:-1]:
        for scheme, _ in SECOND:
            n, fine, _e = data[(scheme, rho)]
            m = fine[:, 0] <= 0.1 * (1 + 1e-9)
            print(f"  rho_inf={rho}  {NAME[scheme]:9s} max AD {fine[m, 2].max():.3g} %  "
                  f"min rho {fine[m, 1].min():.5f}  PE(0.1) {at(data, scheme, rho, 0.1)[2]:+.3g} %")

    print("\nS4/S5: ordering at Delta t/(nT) = 0.05 and 0.1 (AD %, PE %)")
    for x in (0.05, 0.1):
        for rho in SECOND_RHO:
            items = []
            for scheme, _ in SECOND:
                r, ad, pe = at(data, scheme, run_rho(scheme, rho), x)
                items.append(f"{NAME[scheme]} {ad:.3g}/{pe:+.3g}")
            print(f"  x={x} rho_inf={rho}: " + "; ".join(items))

    print("\nS6: rho_inf = 1 against the trapezoidal rule, max |difference|: rho and AD over all "
          "Delta t/(nT), PE over Delta t/(nT) <= 0.1 (beyond, the phase of n sub-steps passes pi "
          "and the principal logarithm aliases: n = 5 at 0.103, n = 2 at 0.318)")
    _, trap, _ = data[("trapezoidal", 1.0)]
    m = trap[:, 0] <= 0.1 * (1 + 1e-9)
    for scheme, _ in SECOND:
        rho = run_rho(scheme, 1.0)
        _, fine, _ = data[(scheme, rho)]
        d = np.abs(fine[:, 1:] - trap[:, 1:]).max(axis=0)
        dpe = np.abs(fine[m, 3] - trap[m, 3]).max()
        print(f"  {NAME[scheme]:9s} rho_inf={rho}: |d rho| {d[0]:.1e}  |d AD %| {d[1]:.1e}  "
              f"|d PE %| {dpe:.1e}")

    print("\nS7: Delta t/(nT) at which rho first falls to 0.99, to 0.9 and to rho_inf + 0.05")
    for rho in SECOND_RHO[:-1]:
        for scheme, _ in SECOND:
            _, fine, _ = data[(scheme, rho)]
            c = [crossing(fine, level) for level in (0.99, 0.9, rho + 0.05)]
            c = " ".join(f"{v:8.3g}" if np.isfinite(v) else "   >1e+03" for v in c)
            print(f"  rho_inf={rho}  {NAME[scheme]:9s} {c}   "
                  f"min rho {fine[:, 1].min():.4f} at {fine[np.argmin(fine[:, 1]), 0]:.3g}")

    print("\nS13: MSSTH at rho_inf = 1 (and 0.5): smallest rho and where")
    for scheme, _ in HIGHER[:3]:
        for rho in (0.5, 1.0):
            _, fine, _ = data[(scheme, rho)]
            i = np.argmin(fine[:, 1])
            print(f"  {NAME[scheme]:9s} rho_inf={rho}: min rho {fine[i, 1]:.4f} at "
                  f"Delta t/(nT) = {fine[i, 0]:.3g}, rho(1e3) = {fine[-1, 1]:.4f}")

    print("\nS11: MSSTH(3) (rho_inf = 0) against ESDIRK3(2)4L[2]SA, max |difference|")
    _, a, _ = data[("mssth3", 0.0)]
    _, b, _ = data[("esdirk3-4", 0.0)]
    for hi in (0.1, 1.0, 1e3):
        m = a[:, 0] <= hi * (1 + 1e-9)
        d = np.abs(a[m, 1:] - b[m, 1:]).max(axis=0)
        print(f"  Delta t/(nT) <= {hi:g}: |d rho| {d[0]:.2e}  |d AD %| {d[1]:.2e}  "
              f"|d PE %| {d[2]:.2e}")

    higher_order_checks(data)


def zero_crossings(fine, col, hi=1.0):
    """Delta t/(nT) <= hi at which the column changes sign (log-interpolated)."""
    x, y = fine[:, 0], fine[:, col]
    out = []
    for i in range(len(x) - 1):
        if x[i + 1] > hi * (1 + 1e-9):
            break
        if y[i] * y[i + 1] < 0:
            t = y[i] / (y[i] - y[i + 1])
            out.append(float(np.exp(np.log(x[i]) + t * np.log(x[i + 1] / x[i]))))
    return out


def first_above(fine, ref, col, hi=0.1):
    """First Delta t/(nT) <= hi at which |column| of fine exceeds |column| of ref (same grid);
    hi = 0.1 keeps PE below the aliasing of the n-stage phase."""
    m = fine[:, 0] <= hi * (1 + 1e-9)
    i = np.nonzero(np.abs(fine[m, col]) > np.abs(ref[m, col]))[0]
    return f"{fine[i[0], 0]:.3g}" if len(i) else f">{hi:g}"


def higher_order_checks(data):
    print("\nS10: sign changes of PE on Delta t/(nT) <= 1 (PE < 0 is period shortening)")
    for scheme, _ in HIGHER:
        for rho in (MSSTH_RHO if scheme.startswith("mssth") else [0.0]):
            _, fine, _ = data[(scheme, rho)]
            print(f"  {NAME[scheme]:19s} rho_inf={rho}: PE(0.001) {fine[0, 3]:+.2e} %, "
                  f"sign changes at {['%.3g' % c for c in zero_crossings(fine, 3)]}")

    print("\nS8/S9: first Delta t/(nT) <= 0.1 at which the higher-order method's |PE| exceeds that of "
          "the trapezoidal rule and of MSSTC(5) rho_inf = 0, and its AD that of Bathe and of LMS2, "
          "rho_inf = 0 (the most dissipative second-order methods)")
    pe_refs = [data[("trapezoidal", 1.0)][1], data[("msstc5", 0.0)][1]]
    ad_refs = [data[("bathe", 0.0)][1], data[("lms2", 0.0)][1]]
    for scheme, _ in HIGHER:
        for rho in (MSSTH_RHO if scheme.startswith("mssth") else [0.0]):
            _, fine, _ = data[(scheme, rho)]
            pe = " ".join(f"{first_above(fine, r, 3):>7s}" for r in pe_refs)
            ad = " ".join(f"{first_above(fine, r, 2):>7s}" for r in ad_refs)
            print(f"  {NAME[scheme]:19s} rho_inf={rho}: |PE| (trap., MSSTC(5)) {pe}   "
                  f"AD (Bathe, LMS2) {ad}")

    print("\nSS-k against LMS-k (the paper's 'intrinsic spectral equivalence'), max |difference| on "
          "Delta t/(nT) <= 10")
    points = int(round(np.log10(10 / X_MIN) * PER_DECADE)) + 1
    for k in (2, 3, 4):
        for rho in SECOND_RHO[:-1]:
            ss = stability(f"ss{k}", rho, 1, X_MIN, 10, points)
            _, lms, _ = data[(f"lms{k}", rho)]
            d = np.abs(ss[:, 1:] - lms[:len(ss), 1:]).max(axis=0)
            print(f"  SS{k} vs LMS{k} rho_inf={rho}: |d rho| {d[0]:.1e}  |d AD %| {d[1]:.1e}  "
                  f"|d PE %| {d[2]:.1e}")


if __name__ == "__main__":
    main()
