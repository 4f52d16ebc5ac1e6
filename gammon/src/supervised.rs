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
use crate::net::{
    consistent, equity, Evaluator, Net, NetClass, Probabilities, MAX_HIDDEN, OUTPUTS,
};
use crate::rng::Rng;
use crate::rollout::Mean;
use std::ops::Range;
use tabula_engine::backgammon::Position;

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

impl FitStats {
    /// Adds label `l` against the raw outputs `y` of the net of `class` (sums; see
    /// [`FitStats::mean`]).
    fn add(&mut self, l: &Label, y: &Probabilities, class: NetClass) {
        self.samples += 1;
        self.cross_entropy += cross_entropy(y, &l.deep);
        let p = consistent(&l.position, *y, class == NetClass::Race);
        self.equity_error += (equity(&p) - equity(&l.deep)).abs() as f64;
    }

    /// The sums of [`FitStats::add`] made means.
    fn mean(mut self) -> FitStats {
        let n = self.samples.max(1) as f64;
        self.cross_entropy /= n;
        self.equity_error /= n;
        self
    }
}

/// The raw outputs of the net that evaluates `pos` in `eval`, and that net's class.
fn raw(eval: &Evaluator, pos: &Position) -> (Probabilities, NetClass) {
    let (net, class) = eval.net_for(pos);
    (net.forward(&Inputs::new(pos)), class)
}

/// Measures `eval` (its nets, whatever bear-off database is attached) on `labels`.
pub fn measure(eval: &Evaluator, labels: &[Label]) -> FitStats {
    let mut s = FitStats::default();
    for l in labels {
        let (y, class) = raw(eval, &l.position);
        s.add(l, &y, class);
    }
    s.mean()
}

/// The labels of each self-play decision ([`Label::decision`]) in `labels` (made from a label
/// file's records and their chunks, `chunk_of`, in the file's order): runs of consecutive
/// labels of the same chunk and decision. A label without a decision is a run of its own.
pub fn decision_groups(labels: &[Label], chunk_of: &[u64]) -> Vec<Range<usize>> {
    assert_eq!(labels.len(), chunk_of.len());
    let key = |i: usize| labels[i].decision.map(|d| (chunk_of[i], d));
    let mut groups: Vec<Range<usize>> = Vec::new();
    for i in 0..labels.len() {
        match groups.last_mut() {
            Some(g) if key(i).is_some() && key(g.start) == key(i) => g.end = i + 1,
            _ => groups.push(i..i + 1),
        }
    }
    groups
}

/// How well an evaluator chooses among the results of one decision's plays, by their labels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ChoiceStats {
    /// Decisions with at least two labelled results.
    pub decisions: usize,
    /// The mean equity the evaluator's choice gives away against the best result by the
    /// labels (the labels' equity of its choice minus their best; cubeless, for the player
    /// who made the play).
    pub regret: f64,
    /// The standard error of that mean.
    pub regret_error: f64,
    /// The share of decisions where its choice is the labels' best.
    pub agree: f64,
}

/// What `eval` (as it plays, 0 plies) gives away at each decision of at least two results
/// ([`decision_groups`]), by the labels: the labels' equity of its choice minus their best. A
/// result is the position with the opponent on roll, so the mover's best is the lowest
/// equity. Groups of one result are left out.
pub fn choice_regrets(
    eval: &Evaluator,
    labels: &[Label],
    groups: &[Range<usize>],
) -> Vec<(f64, bool)> {
    let ours = |l: &Label| {
        let (y, class) = raw(eval, &l.position);
        equity(&consistent(&l.position, y, class == NetClass::Race))
    };
    let mut out = Vec::new();
    for g in groups.iter().filter(|g| g.len() >= 2) {
        let lowest = |f: &dyn Fn(&Label) -> f32| {
            let mut best = (g.start, f32::INFINITY);
            for i in g.clone() {
                let e = f(&labels[i]);
                if e < best.1 {
                    best = (i, e);
                }
            }
            best.0
        };
        let chosen = lowest(&ours);
        let best = lowest(&|l: &Label| equity(&l.deep));
        let r = (equity(&labels[chosen].deep) - equity(&labels[best].deep)) as f64;
        out.push((r, chosen == best));
    }
    out
}

impl ChoiceStats {
    /// The figures of the regrets [`choice_regrets`] gives.
    pub fn of(regrets: &[(f64, bool)]) -> ChoiceStats {
        let (regret, regret_error) = regrets.iter().map(|r| r.0).collect::<Mean>().estimate();
        ChoiceStats {
            decisions: regrets.len(),
            regret,
            regret_error,
            agree: regrets.iter().filter(|r| r.1).count() as f64 / regrets.len().max(1) as f64,
        }
    }
}

/// [`choice_regrets`] summed up.
pub fn measure_choices(eval: &Evaluator, labels: &[Label], groups: &[Range<usize>]) -> ChoiceStats {
    ChoiceStats::of(&choice_regrets(eval, labels, groups))
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
        w1: w1.into(),
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
    let order = shuffled(labels.len(), seed);
    let mut s = FitStats::default();
    let mut h = [0.0f32; MAX_HIDDEN];
    for &i in &order {
        let l = &labels[i];
        let class = NetClass::of(&l.position);
        let net = eval.net_mut(class);
        let x = Inputs::new(&l.position);
        let y = net.forward_into(&x, &mut h);
        s.add(l, &y, class);
        step(net, &x, &h[..net.hidden], &y, &l.deep, alpha);
    }
    s.mean()
}

/// `0..n` in the order of a Fisher–Yates shuffle drawn from `seed`.
fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = Rng::new(seed);
    for i in (1..n).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    order
}

/// The equity's weight on each output ([`equity`] is linear in them).
const EQUITY_WEIGHTS: [f32; OUTPUTS] = [2.0, 1.0, 1.0, -1.0, -1.0];

/// One pass over `labels` by decision ([`decision_groups`], in an order drawn from `seed`),
/// a gradient step of size `alpha` per label of the cross-entropy, as [`fit_epoch`], plus
/// `rank` times the squared error of each result's equity relative to its group's mean:
/// `rank × Σ_i ((E_i − Ē) − (Y_i − Ȳ))²` over a group's results, E the net's raw cubeless
/// equity and Y the label's. The second term asks the net for the differences between the
/// results of one roll, which are what its choices turn on, whatever its error common to all
/// of them. All of a group's gradients are taken before any of its steps. With `rank` 0 and
/// a group for each label, it is [`fit_epoch`], bit for bit.
pub fn fit_epoch_ranked(
    eval: &mut Evaluator,
    labels: &[Label],
    groups: &[Range<usize>],
    alpha: f32,
    rank: f32,
    seed: u64,
) -> FitStats {
    let order = shuffled(groups.len(), seed);
    let mut s = FitStats::default();
    struct Member {
        class: NetClass,
        x: Inputs,
        h: [f32; MAX_HIDDEN],
        y: [f32; OUTPUTS],
    }
    let mut members: Vec<Member> = Vec::new();
    for &gi in &order {
        let g = groups[gi].clone();
        members.clear();
        for l in &labels[g.clone()] {
            let class = NetClass::of(&l.position);
            let x = Inputs::new(&l.position);
            let mut h = [0.0f32; MAX_HIDDEN];
            let y = eval.net_mut(class).forward_into(&x, &mut h);
            s.add(l, &y, class);
            members.push(Member { class, x, h, y });
        }
        let n = members.len() as f32;
        let (mut mean_e, mut mean_t) = (0.0f32, 0.0f32);
        for (m, l) in members.iter().zip(&labels[g.clone()]) {
            mean_e += equity(&m.y) / n;
            mean_t += equity(&l.deep) / n;
        }
        for (m, l) in members.iter().zip(&labels[g]) {
            // d(rank × Σ d_j²)/dE_i = 2 rank d_i (the deviations sum to zero).
            let dev = (equity(&m.y) - mean_e) - (equity(&l.deep) - mean_t);
            let r = if members.len() >= 2 {
                2.0 * rank * dev
            } else {
                0.0
            };
            let d: [f32; OUTPUTS] = std::array::from_fn(|k| {
                l.deep[k] - m.y[k] - r * EQUITY_WEIGHTS[k] * m.y[k] * (1.0 - m.y[k])
            });
            let net = eval.net_mut(m.class);
            let hidden = net.hidden;
            step_by(net, &m.x, &m.h[..hidden], &d, alpha);
        }
    }
    s.mean()
}

/// One gradient step of the cross-entropy for input `x` (hidden activations `h`, outputs `y`)
/// towards `t`.
fn step(net: &mut Net, x: &Inputs, h: &[f32], y: &[f32; OUTPUTS], t: &[f32; OUTPUTS], alpha: f32) {
    let d: [f32; OUTPUTS] = std::array::from_fn(|k| t[k] - y[k]);
    step_by(net, x, h, &d, alpha);
}

/// One gradient step for input `x` (hidden activations `h`), `d` the loss's negative gradient
/// at each output's pre-activation.
fn step_by(net: &mut Net, x: &Inputs, h: &[f32], d: &[f32; OUTPUTS], alpha: f32) {
    let n = net.hidden;
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

    /// Labels of a sibling run of one chunk, grouped by decision.
    fn sibling_labels(eval: &Evaluator) -> (Vec<Label>, Vec<Range<usize>>) {
        let o = LabelOptions {
            plies: 1,
            games_per_chunk: 1,
            only: Some(NetClass::Contact),
            siblings: 2,
            ..LabelOptions::default()
        };
        let labels = label_chunk(eval, &o, 3);
        let groups = decision_groups(&labels, &vec![3; labels.len()]);
        (labels, groups)
    }

    #[test]
    fn decision_groups_are_the_runs_of_one_decision() {
        let eval = crate::weights::builtin().unwrap();
        let (labels, groups) = sibling_labels(eval);
        assert!(groups.iter().any(|g| g.len() == 3));
        let mut next = 0;
        for g in &groups {
            assert_eq!(g.start, next, "the groups cover the labels in order");
            next = g.end;
            assert!(labels[g.clone()]
                .iter()
                .all(|l| l.decision == labels[g.start].decision));
        }
        assert_eq!(next, labels.len());
        for w in groups.windows(2) {
            assert_ne!(labels[w[0].start].decision, labels[w[1].start].decision);
        }
        // The same numbers in two chunks are two decisions; labels without one stand alone.
        let two = [labels[0], labels[0]];
        assert_eq!(decision_groups(&two, &[0, 0]), vec![0..2]);
        assert_eq!(decision_groups(&two, &[0, 1]), vec![0..1, 1..2]);
        let plain = [Label {
            decision: None,
            ..labels[0]
        }; 2];
        assert_eq!(decision_groups(&plain, &[0, 0]), vec![0..1, 1..2]);
    }

    /// The choice measured: labels that agree with the net cost nothing; labels that put the
    /// net's choice last cost the whole spread.
    #[test]
    fn choices_are_measured_by_the_labels() {
        let eval = crate::weights::builtin().unwrap();
        let (labels, groups) = sibling_labels(eval);
        let own: Vec<Label> = labels
            .iter()
            .map(|l| Label {
                deep: eval.evaluate(&l.position),
                ..*l
            })
            .collect();
        let s = measure_choices(eval, &own, &groups);
        assert!(s.decisions > 5);
        assert_eq!((s.regret, s.agree), (0.0, 1.0));
        // Reverse each group's labels by equity: the net's choice now has the worst.
        let mut worst = own.clone();
        let mut spread = 0.0f64;
        for g in groups.iter().filter(|g| g.len() >= 2) {
            let mut by: Vec<usize> = g.clone().collect();
            by.sort_by(|&a, &b| equity(&own[a].deep).total_cmp(&equity(&own[b].deep)));
            for (&a, &b) in by.iter().zip(by.iter().rev()) {
                worst[a].deep = own[b].deep;
            }
            let (lo, hi) = (by[0], by[by.len() - 1]);
            spread += (equity(&own[hi].deep) - equity(&own[lo].deep)) as f64;
        }
        let s = measure_choices(eval, &worst, &groups);
        assert!(s.agree < 0.2, "{s:?}");
        assert!(
            (s.regret - spread / s.decisions as f64).abs() < 1e-6,
            "{s:?}"
        );
        assert!(s.regret_error > 0.0);
    }

    /// With `rank` 0 and a group for each label, a ranked pass is the plain pass, bit for bit.
    #[test]
    fn a_ranked_pass_without_rank_is_the_plain_pass() {
        let eval = crate::weights::builtin().unwrap();
        let (labels, _) = sibling_labels(eval);
        let singles: Vec<Range<usize>> = (0..labels.len()).map(|i| i..i + 1).collect();
        let (mut a, mut b) = (eval.clone(), eval.clone());
        let sa = fit_epoch(&mut a, &labels, 0.01, 7);
        let sb = fit_epoch_ranked(&mut b, &labels, &singles, 0.01, 0.0, 7);
        assert_eq!(a, b);
        assert_eq!(sa, sb);
    }

    /// A ranked step on one group follows the gradient of the cross-entropies plus `rank`
    /// times the squared errors of the equities relative to the group's mean.
    #[test]
    fn a_ranked_step_follows_the_gradient() {
        let mut rng = Rng::new(11);
        let eval = Evaluator::random(9, 5, &mut rng);
        let (labels, groups) = sibling_labels(crate::weights::builtin().unwrap());
        let g = groups.iter().find(|g| g.len() == 3).unwrap().clone();
        let group = &labels[g.clone()];
        let rank = 3.0f32;
        let loss = |e: &Evaluator| -> f64 {
            let ys: Vec<[f32; OUTPUTS]> = group
                .iter()
                .map(|l| e.contact.forward(&Inputs::new(&l.position)))
                .collect();
            let n = ys.len() as f64;
            let me = ys.iter().map(|y| equity(y) as f64).sum::<f64>() / n;
            let mt = group.iter().map(|l| equity(&l.deep) as f64).sum::<f64>() / n;
            let mut total = 0.0;
            for (y, l) in ys.iter().zip(group) {
                let d = (equity(y) as f64 - me) - (equity(&l.deep) as f64 - mt);
                total += cross_entropy(y, &l.deep) + rank as f64 * d * d;
            }
            total
        };
        let alpha = 1e-3f32;
        // The weights after one ranked pass over the group.
        let one_pass = |rank: f32| {
            let mut e = eval.clone();
            fit_epoch_ranked(&mut e, group, std::slice::from_ref(&(0..3)), alpha, rank, 1);
            e
        };
        let stepped = one_pass(rank);
        let eps = 1e-3f32;
        let mut checked = 0;
        for i in (0..eval.contact.b1.len()).take(9) {
            let (mut plus, mut minus) = (eval.clone(), eval.clone());
            plus.contact.b1[i] += eps;
            minus.contact.b1[i] -= eps;
            let grad = (loss(&plus) - loss(&minus)) / (2.0 * eps as f64);
            let moved = (stepped.contact.b1[i] - eval.contact.b1[i]) as f64;
            assert!(
                (moved + alpha as f64 * grad).abs() <= 0.05 * (alpha as f64 * grad).abs() + 1e-8,
                "bias {i}: moved {moved}, gradient {grad}"
            );
            checked += usize::from(grad.abs() > 1e-4);
        }
        assert!(checked > 3);
        for k in 0..OUTPUTS {
            let (mut plus, mut minus) = (eval.clone(), eval.clone());
            plus.contact.b2[k] += eps;
            minus.contact.b2[k] -= eps;
            let grad = (loss(&plus) - loss(&minus)) / (2.0 * eps as f64);
            let moved = (stepped.contact.b2[k] - eval.contact.b2[k]) as f64;
            // Within 5%, or a rounding of the bias (an f32 near 1 or more).
            let ulp = 2.0 * f32::EPSILON as f64 * eval.contact.b2[k].abs().max(1.0) as f64;
            assert!(
                (moved + alpha as f64 * grad).abs() <= 0.05 * (alpha as f64 * grad).abs() + ulp,
                "output {k}: moved {moved}, gradient {grad}"
            );
        }
        // Without the rank term the step differs: the term is there.
        assert_ne!(one_pass(0.0).contact.b2, stepped.contact.b2);
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
        // Self-play reaches few crashed positions: as many chunks as it takes for a few.
        let mut labels: Vec<Label> = Vec::new();
        for c in 0..40 {
            if labels.len() > 5 {
                break;
            }
            labels.extend(label_chunk(shipped, &o, c));
        }
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
