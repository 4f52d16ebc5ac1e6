//! Supervised training of the nets on labelled positions ([`crate::label`]): stochastic
//! gradient descent on the cross-entropy between each output and its label, one sample at a
//! time in a seeded order, so that a fit is deterministic for its seed.
//!
//! Each output is a sigmoid unit read as a probability, so the cross-entropy
//! `−Σ_k t_k ln y_k + (1 − t_k) ln(1 − y_k)` has the gradient `y_k − t_k` at output `k`'s
//! pre-activation (no vanishing sigmoid slope near 0 or 1, where the gammon outputs live). A
//! position trains the net that evaluates it, as [`Evaluator::net_for`] picks; the net's
//! raw outputs are trained (the evaluator's consistency rules, [`crate::net::consistent`], are
//! applied after them as in play).

use crate::inputs::Inputs;
use crate::label::Label;
use crate::net::{consistent, equity, Evaluator, Net, NetClass, MAX_HIDDEN, OUTPUTS};
use crate::rng::Rng;

/// How well an evaluator fits a set of labels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FitStats {
    /// Labels measured.
    pub samples: usize,
    /// Mean cross-entropy over the five outputs (raw net outputs against the labels).
    pub cross_entropy: f64,
    /// Mean absolute difference of cubeless equities (the evaluator as it plays: consistent
    /// outputs, against the label).
    pub equity_error: f64,
}

/// Measures `eval` (its nets, whatever bear-off database is attached) on `labels`.
pub fn measure(eval: &Evaluator, labels: &[Label]) -> FitStats {
    let mut s = FitStats {
        samples: labels.len(),
        ..FitStats::default()
    };
    for l in labels {
        let (net, class) = eval.net_for(&l.position);
        let y = net.forward(&Inputs::new(&l.position));
        s.cross_entropy += cross_entropy(&y, &l.deep);
        let p = consistent(&l.position, y, class == NetClass::Race);
        s.equity_error += (equity(&p) - equity(&l.deep)).abs() as f64;
    }
    let n = labels.len().max(1) as f64;
    s.cross_entropy /= n;
    s.equity_error /= n;
    s
}

fn cross_entropy(y: &[f32; OUTPUTS], t: &[f32; OUTPUTS]) -> f64 {
    const EPS: f64 = 1e-7;
    y.iter()
        .zip(t)
        .map(|(&y, &t)| {
            let (y, t) = ((y as f64).clamp(EPS, 1.0 - EPS), t as f64);
            -(t * y.ln() + (1.0 - t) * (1.0 - y).ln())
        })
        .sum()
}

/// `net` with `hidden` hidden units (at least as many as it has): its own units, then new
/// ones with all their weights zero, for [`widen`] and [`split`] to fill.
fn grown(net: &Net, hidden: usize) -> Net {
    assert!(hidden >= net.hidden && hidden <= MAX_HIDDEN);
    let (old, n) = (net.hidden, hidden);
    let inputs = net.w1.len() / old;
    let mut w1 = vec![0.0f32; inputs * n];
    for i in 0..inputs {
        w1[i * n..i * n + old].copy_from_slice(&net.w1[i * old..(i + 1) * old]);
    }
    let mut b1 = net.b1.clone();
    b1.resize(n, 0.0);
    let mut w2 = vec![0.0f32; OUTPUTS * n];
    for k in 0..OUTPUTS {
        w2[k * n..k * n + old].copy_from_slice(&net.w2[k * old..(k + 1) * old]);
    }
    Net {
        hidden: n,
        w1,
        b1,
        w2,
        b2: net.b2,
    }
}

/// `net` with `hidden` hidden units (at least as many as it has): its own units, then new
/// ones with small random input weights and zero output weights, so the wider net computes
/// exactly what `net` did until training moves the new output weights.
pub fn widen(net: &Net, hidden: usize, rng: &mut Rng) -> Net {
    let mut wide = grown(net, hidden);
    let (old, n) = (net.hidden, hidden);
    for row in wide.w1.chunks_exact_mut(n) {
        for w in &mut row[old..] {
            *w = 0.1 * rng.symmetric();
        }
    }
    for b in &mut wide.b1[old..] {
        *b = 0.1 * rng.symmetric();
    }
    wide
}

/// `net` with `hidden` hidden units (at least as many as it has), the new ones split off its
/// units (as in Net2Net): each new unit copies the input weights of one of the units with the
/// largest output weights, plus a little noise that sets the two apart, and the two share that
/// unit's output weights half and half. The wider net computes nearly what `net` did, and its
/// new units start as features the net uses, with gradients as large as their originals'.
pub fn split(net: &Net, hidden: usize, rng: &mut Rng) -> Net {
    let mut wide = grown(net, hidden);
    let (old, n) = (net.hidden, hidden);
    let weight = |j: usize| -> f32 { (0..OUTPUTS).map(|k| net.w2[k * old + j].abs()).sum() };
    let mut by_weight: Vec<usize> = (0..old).collect();
    by_weight.sort_by(|&a, &b| weight(b).total_cmp(&weight(a)).then(a.cmp(&b)));
    let source: Vec<usize> = (0..n - old).map(|j| by_weight[j % old]).collect();
    for row in wide.w1.chunks_exact_mut(n) {
        for (j, &s) in source.iter().enumerate() {
            row[old + j] = row[s] + SPLIT_NOISE * rng.symmetric();
        }
    }
    for (j, &s) in source.iter().enumerate() {
        wide.b1[old + j] = net.b1[s];
        // A unit split more than once (more new units than old) halves again.
        for k in 0..OUTPUTS {
            let half = wide.w2[k * n + s] * 0.5;
            wide.w2[k * n + s] = half;
            wide.w2[k * n + old + j] = half;
        }
    }
    wide
}

/// The noise on a split unit's input weights.
const SPLIT_NOISE: f32 = 0.01;

/// One pass over `labels` in an order drawn from `seed`, a gradient step of size `alpha` per
/// label. Returns the fit measured on the way (each label before its own step).
pub fn fit_epoch(eval: &mut Evaluator, labels: &[Label], alpha: f32, seed: u64) -> FitStats {
    let mut order: Vec<usize> = (0..labels.len()).collect();
    let mut rng = Rng::new(seed);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let mut s = FitStats {
        samples: labels.len(),
        ..FitStats::default()
    };
    let mut h = [0.0f32; MAX_HIDDEN];
    for &i in &order {
        let l = &labels[i];
        let class = NetClass::of(&l.position);
        let race = class == NetClass::Race;
        let net = eval.net_mut(class);
        let x = Inputs::new(&l.position);
        let y = net.forward_into(&x, &mut h);
        s.cross_entropy += cross_entropy(&y, &l.deep);
        let p = consistent(&l.position, y, race);
        s.equity_error += (equity(&p) - equity(&l.deep)).abs() as f64;
        step(net, &x, &h[..net.hidden], &y, &l.deep, alpha);
    }
    let n = labels.len().max(1) as f64;
    s.cross_entropy /= n;
    s.equity_error /= n;
    s
}

/// One gradient step of the cross-entropy for input `x` (hidden activations `h`, outputs `y`)
/// towards `t`.
fn step(net: &mut Net, x: &Inputs, h: &[f32], y: &[f32; OUTPUTS], t: &[f32; OUTPUTS], alpha: f32) {
    let n = net.hidden;
    let d: [f32; OUTPUTS] = std::array::from_fn(|k| t[k] - y[k]);
    // Hidden pre-activation gradients, with the output weights before their own step.
    let mut gh = [0.0f32; MAX_HIDDEN];
    for (k, &dk) in d.iter().enumerate() {
        for ((g, &w), &a) in gh[..n].iter_mut().zip(&net.w2[k * n..(k + 1) * n]).zip(h) {
            *g += dk * w * a * (1.0 - a);
        }
    }
    for (k, &dk) in d.iter().enumerate() {
        let c = alpha * dk;
        for (w, &a) in net.w2[k * n..(k + 1) * n].iter_mut().zip(h) {
            *w += c * a;
        }
        net.b2[k] += c;
    }
    for m in 0..x.len {
        let i = x.index[m] as usize;
        let c = alpha * x.value[m];
        for (w, &g) in net.w1[i * n..(i + 1) * n].iter_mut().zip(&gh[..n]) {
            *w += c * g;
        }
    }
    for (b, &g) in net.b1.iter_mut().zip(&gh[..n]) {
        *b += alpha * g;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::{label_chunk, LabelOptions};

    /// The analytic gradient of one step agrees with finite differences of the cross-entropy.
    #[test]
    fn a_step_follows_the_gradient() {
        let mut rng = Rng::new(5);
        let mut eval = Evaluator::random(7, 5, &mut rng);
        let pos = tabula_engine::backgammon::Position::START;
        let t = [0.6, 0.2, 0.01, 0.15, 0.02];
        let loss = |e: &Evaluator| {
            let (net, _) = e.net_for(&pos);
            cross_entropy(&net.forward(&Inputs::new(&pos)), &t)
        };
        let before = loss(&eval);
        // Each input weight moves by −alpha × its gradient (taken at the old weights), which
        // finite differences of the loss confirm.
        let old = eval.contact.clone();
        let x = Inputs::new(&pos);
        let mut h = [0.0f32; MAX_HIDDEN];
        let y = eval.contact.forward_into(&x, &mut h);
        step(&mut eval.contact, &x, &h[..7], &y, &t, 1e-3);
        let mut predicted = 0.0f64;
        let eps = 1e-3f32;
        let mut probe = eval.clone();
        let moved: Vec<(usize, f32)> = old
            .w1
            .iter()
            .zip(&eval.contact.w1)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(i, (a, b))| (i, b - a))
            .collect();
        assert!(
            !moved.is_empty(),
            "the inputs of the start moved some weights"
        );
        probe.contact = old.clone();
        for &(i, dw) in moved.iter().take(40) {
            let mut plus = probe.clone();
            plus.contact.w1[i] += eps;
            let mut minus = probe.clone();
            minus.contact.w1[i] -= eps;
            let g = (loss(&plus) - loss(&minus)) / (2.0 * eps as f64);
            // A descent step moves each weight against its gradient, by alpha × gradient.
            assert!(
                (dw as f64 + 1e-3 * g).abs() <= 1e-3 * g.abs() * 0.05 + 1e-7,
                "weight {i}: moved {dw}, gradient {g}"
            );
            predicted += g * dw as f64;
        }
        assert!(predicted < 0.0);
        assert!(loss(&eval) < before, "the step lowers the loss");
    }

    #[test]
    fn a_widened_net_computes_the_same() {
        let eval = crate::weights::builtin().unwrap();
        let wide = widen(&eval.contact, eval.contact.hidden() + 24, &mut Rng::new(2));
        assert_eq!(wide.hidden(), eval.contact.hidden() + 24);
        let pos = tabula_engine::backgammon::Position::START;
        let (a, b) = (
            eval.contact.forward(&Inputs::new(&pos)),
            wide.forward(&Inputs::new(&pos)),
        );
        for k in 0..OUTPUTS {
            assert!((a[k] - b[k]).abs() < 1e-5, "{a:?} {b:?}");
        }
    }

    /// A split net computes nearly what the net did; its new units are copies of the
    /// strongest units (apart from the noise) and share their output weights; and, unlike
    /// zero-output units, they move in training as much as the units they came from.
    #[test]
    fn a_split_net_starts_near_the_net_and_its_new_units_learn() {
        let eval = crate::weights::builtin().unwrap();
        let (old, n) = (eval.contact.hidden(), eval.contact.hidden() + 24);
        let wide = split(&eval.contact, n, &mut Rng::new(2));
        assert_eq!(wide.hidden(), n);
        let labels = label_chunk(
            eval,
            &LabelOptions {
                plies: 1,
                games_per_chunk: 2,
                only: Some(NetClass::Contact),
                ..LabelOptions::default()
            },
            0,
        );
        assert!(labels.len() > 20);
        let mut far = 0.0f32;
        for l in &labels {
            let x = Inputs::new(&l.position);
            let (a, b) = (eval.contact.forward(&x), wide.forward(&x));
            for k in 0..OUTPUTS {
                far = far.max((a[k] - b[k]).abs());
            }
        }
        assert!(far > 0.0 && far < 0.01, "largest output change {far}");
        // Each new unit's output weights are those of an old unit, which kept the other half.
        for j in old..n {
            let twin = (0..old)
                .find(|&s| (0..OUTPUTS).all(|k| wide.w2[k * n + s] == wide.w2[k * n + j]))
                .expect("a twin with the same output weights");
            for k in 0..OUTPUTS {
                assert_eq!(wide.w2[k * n + twin] * 2.0, eval.contact.w2[k * old + twin]);
            }
            assert_eq!(wide.b1[j], eval.contact.b1[twin]);
        }
        // Train both wider nets on the same labels: the split units' input weights move about
        // as much as the old units', the zero-output units' far less.
        let moved = |start: &Net| -> (f64, f64) {
            let mut e = Evaluator {
                contact: start.clone(),
                ..eval.clone()
            };
            for epoch in 0..3 {
                fit_epoch(&mut e, &labels, 0.05, epoch);
            }
            let inputs = start.w1.len() / n;
            let mut d = [0.0f64; 2];
            for i in 0..inputs {
                for h in 0..n {
                    d[usize::from(h >= old)] +=
                        (e.contact.w1[i * n + h] - start.w1[i * n + h]).abs() as f64;
                }
            }
            (d[0] / old as f64, d[1] / (n - old) as f64)
        };
        let (old_units, split_units) = moved(&wide);
        assert!(
            split_units > 0.3 * old_units,
            "{split_units} against {old_units}"
        );
        let (old_units, zero_units) = moved(&widen(&eval.contact, n, &mut Rng::new(2)));
        assert!(
            zero_units < 0.3 * old_units,
            "{zero_units} against {old_units}"
        );
    }

    /// Crashed labels train a crashed net of its own and leave the other nets alone; without
    /// one they train the contact net.
    #[test]
    fn crashed_labels_train_the_crashed_net() {
        // The shipped nets without their crashed net.
        let shipped = &Evaluator {
            crashed: None,
            ..crate::weights::builtin().unwrap().clone()
        };
        let o = LabelOptions {
            plies: 1,
            games_per_chunk: 4,
            only: Some(NetClass::Crashed),
            ..LabelOptions::default()
        };
        let labels: Vec<Label> = (0..3).flat_map(|c| label_chunk(shipped, &o, c)).collect();
        assert!(labels.len() > 5);
        let mut split = shipped.clone();
        split.crashed = Some(split.contact.clone());
        assert_eq!(measure(&split, &labels), measure(shipped, &labels));
        fit_epoch(&mut split, &labels, 0.01, 1);
        assert_eq!(split.contact, shipped.contact);
        assert_eq!(split.race, shipped.race);
        assert_ne!(split.crashed.as_ref(), Some(&shipped.contact));
        let mut plain = shipped.clone();
        fit_epoch(&mut plain, &labels, 0.01, 1);
        assert_eq!(plain.crashed, None);
        assert_eq!(Some(&plain.contact), split.crashed.as_ref());
    }

    /// Fitting a net to a search's labels lowers the error on those labels, deterministically.
    #[test]
    fn fitting_lowers_the_error_and_is_deterministic() {
        let eval = crate::weights::builtin().unwrap();
        let o = LabelOptions {
            plies: 1,
            games_per_chunk: 2,
            ..LabelOptions::default()
        };
        let labels = label_chunk(eval, &o, 0);
        let before = measure(eval, &labels);
        let mut a = eval.clone();
        let mut b = eval.clone();
        for e in 0..3 {
            fit_epoch(&mut a, &labels, 0.01, e);
            fit_epoch(&mut b, &labels, 0.01, e);
        }
        assert_eq!(a, b);
        let after = measure(&a, &labels);
        assert!(
            after.cross_entropy < before.cross_entropy,
            "{before:?} → {after:?}"
        );
        assert!(
            after.equity_error < before.equity_error,
            "{before:?} → {after:?}"
        );
    }
}
