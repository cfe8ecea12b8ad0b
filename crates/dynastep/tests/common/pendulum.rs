//! The angle pendulum's reference solution, shared by the order tests (included with `#[path]`).

/// θ̈ = −(g/L) sin θ with g/L = 9.81 s⁻², integrated by classical RK4 with step `h` [s] from
/// (θ0, 0) to `t_end` [s]: (θ [rad], θ̇ [rad/s]). Its error is O(h⁴).
pub fn rk4_pendulum(theta0: f64, t_end: f64, h: f64) -> (f64, f64) {
    let f = |y: [f64; 2]| [y[1], -9.81 * y[0].sin()];
    let mut y = [theta0, 0.0];
    for _ in 0..(t_end / h).round() as usize {
        let k1 = f(y);
        let k2 = f([y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]]);
        let k3 = f([y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]]);
        let k4 = f([y[0] + h * k3[0], y[1] + h * k3[1]]);
        for i in 0..2 {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    (y[0], y[1])
}
