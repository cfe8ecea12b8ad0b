//! Assembly from approximate poses with a joint value held: the slider-crank's crank joint angle is
//! marked `given`, the connecting rod and slider are placed roughly; assembly must keep the crank angle
//! exactly, close every loop (Φ = 0), and satisfy the velocity constraints. The closed-form position
//! of the slider, x_B = r cos θ + √(l² − r² sin² θ) (r = 0.1 m, l = 0.3 m), is the independent check.

use dynastep::analysis::simulation::{RunOptions, Simulation};
use dynastep::model::parse;
use dynastep::system::System;

fn slider_crank(overrides: &[&str]) -> Result<Simulation, String> {
    let ex = dynastep::examples::find("slider-crank").unwrap();
    let set: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let model =
        parse::from_str_with_overrides(ex.text, ex.file, &set).map_err(|e| e.to_string())?;
    Simulation::new(&model, &RunOptions::default()).map_err(|e| e.to_string())
}

#[test]
fn a_given_joint_angle_is_kept_and_the_loop_closed() {
    let theta = std::f64::consts::FRAC_PI_4;
    let sim = slider_crank(&[
        "joints.O.given=true",
        "bodies.crank.given=[]",
        "bodies.rod.x=0.25",
        "bodies.rod.y=0.05",
        "bodies.rod.theta=-0.4",
        "bodies.slider.x=0.45",
    ])
    .unwrap();
    let sys = &sim.system;
    let q = &sim.initial.q;
    let crank = sys.body_index("crank").unwrap();
    let slider = sys.body_index("slider").unwrap();
    assert!(
        (sys.body_pose(crank, q)[2] - theta).abs() < 1e-12,
        "crank angle moved"
    );
    let (r, l) = (0.1_f64, 0.3_f64);
    let x_exact = r * theta.cos() + (l * l - (r * theta.sin()).powi(2)).sqrt();
    assert!(
        (sys.body_pose(slider, q)[0] - x_exact).abs() < 1e-10,
        "slider at {:?}",
        sys.body_pose(slider, q)
    );
    let mut phi = dynastep::Vector::zeros(sys.m());
    sys.constraints(sim.initial.t, q, &mut phi);
    assert!(phi.amax() < 1e-12);
    assert!(
        sim.assembly.max_position_change > 0.01,
        "the rough poses were corrected"
    );
}

#[test]
fn given_on_a_distance_joint_is_rejected_with_its_line() {
    let err = slider_crank(&["joints.O.given=true", "joints.A.given=\"yes\""]).unwrap_err();
    assert!(
        err.contains("joints.A.given") || err.contains("given"),
        "{err}"
    );
    let ex = dynastep::examples::find("pendulum").unwrap();
    let text = ex
        .text
        .replace("length = 1.0", "length = 1.0\ngiven = true");
    let e = parse::from_str(&text, "p.toml").unwrap_err().to_string();
    assert!(
        e.contains("p.toml:") && e.contains("`given` holds the value of a revolute joint"),
        "{e}"
    );
}
