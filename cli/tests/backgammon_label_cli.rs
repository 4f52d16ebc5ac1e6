//! `tabula backgammon label` and `fit`: a label run is the same whatever the thread count and
//! across an interruption, a damaged file is refused, and the fitted weights play.

mod common;

use common::{assert_bad_input, assert_weights_play, tabula};
use std::path::{Path, PathBuf};
use tabula_gammon::label::{chunk_text, Label, LabelFile, MAGIC};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tabula-label-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `label` with small settings: 1-ply labels, one game a chunk, no bearoff database.
fn label(out: &Path, games: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "backgammon",
        "label",
        "--out",
        out.to_str().unwrap(),
        "--games",
        games,
        "--plies",
        "1",
        "--games-per-chunk",
        "1",
        "--seed",
        "3",
        "--no-bearoff",
    ];
    args.extend_from_slice(extra);
    tabula(&args)
}

/// The shipped weights with random contact and crashed nets (16 hidden units), written to
/// `dir`: a start that any fit on labels of those classes improves on, so that a test of what
/// a fit trains does not hang on whether the shipped nets, already close to small label sets,
/// improve on them in 20 epochs.
fn off_weights(dir: &Path) -> (PathBuf, tabula_gammon::NetFile) {
    let mut file = tabula_gammon::NetFile::decode(tabula_gammon::weights::BUILTIN).unwrap();
    let mut rng = tabula_gammon::Rng::new(9);
    let random = tabula_gammon::Evaluator::random(16, 16, &mut rng);
    file.evaluator.contact = random.contact.clone();
    file.evaluator.crashed = Some(random.race);
    let path = dir.join("off.tnet");
    file.save(&path, tabula_store::Existing::Replace).unwrap();
    (path, file)
}

/// Exit code 2 with one line of error naming `needle`.
fn refused(o: &std::process::Output, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains(needle) && !err.contains("panicked"), "{err}");
}

fn ok(o: &std::process::Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The label lines of a label file's text (its `#` lines left out).
fn records(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| !l.starts_with('#'))
}

/// `fit` of the shipped weights on `labels` (every third chunk held out, 20 annealed epochs of
/// step 0.05) into `out`.
fn fit_20_epochs(labels: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    fit_20_epochs_at(labels, out, "0.05", extra)
}

/// The same at step size `alpha`.
fn fit_20_epochs_at(
    labels: &Path,
    out: &Path,
    alpha: &str,
    extra: &[&str],
) -> std::process::Output {
    let mut args = vec![
        "backgammon",
        "fit",
        "--labels",
        labels.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--hold-out",
        "3",
        "--epochs",
        "20",
        "--alpha",
        alpha,
        "--anneal",
    ];
    args.extend_from_slice(extra);
    tabula(&args)
}

#[test]
fn labels_are_reproducible_resumable_and_fit() {
    let dir = scratch("run");
    let straight = dir.join("straight.txt");
    let parallel = dir.join("parallel.txt");
    let resumed = dir.join("resumed.txt");
    ok(&label(&straight, "4", &[]));
    ok(&label(&parallel, "4", &["--threads", "2"]));
    let text = std::fs::read_to_string(&straight).unwrap();
    assert_eq!(text, std::fs::read_to_string(&parallel).unwrap());
    assert_eq!(text.matches("\n# chunk ").count(), 4);

    // Interrupted in the middle of writing its third chunk, then resumed.
    ok(&label(&resumed, "3", &[]));
    let partial = std::fs::read_to_string(&resumed).unwrap();
    let cut = partial.len() - 25;
    std::fs::write(&resumed, &partial[..cut]).unwrap();
    let o = label(&resumed, "4", &["--resume"]);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stderr).contains("dropping an unfinished chunk"));
    assert_eq!(text, std::fs::read_to_string(&resumed).unwrap());

    // Fit the shipped nets on them (every other chunk held out) and play with the result.
    let weights = dir.join("fit.tnet");
    let o = tabula(&[
        "backgammon",
        "fit",
        "--labels",
        straight.to_str().unwrap(),
        "--out",
        weights.to_str().unwrap(),
        "--hold-out",
        "2",
        "--epochs",
        "2",
        "--alpha",
        "0.001",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    if o.status.success() {
        assert!(err.contains("held out"), "{err}");
        assert_weights_play(&weights);
    } else {
        // Two epochs on a few hundred labels may fail to improve: then nothing is written.
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("no epoch improved"), "{err}");
        assert!(!weights.exists());
    }
    // An existing --out is not overwritten without --force.
    std::fs::write(&weights, b"mine").unwrap();
    assert_bad_input(
        &[
            "backgammon",
            "fit",
            "--labels",
            straight.to_str().unwrap(),
            "--out",
            weights.to_str().unwrap(),
        ],
        "--force",
    );
    assert_eq!(std::fs::read(&weights).unwrap(), b"mine");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_label_input_exits_2() {
    let dir = scratch("bad");
    let file = dir.join("l.txt");
    ok(&label(&file, "2", &[]));
    let path = file.to_str().unwrap();
    let before = std::fs::read_to_string(&file).unwrap();
    // An existing file without --resume, and a resume with other options.
    assert_bad_input(
        &["backgammon", "label", "--out", path, "--games", "3"],
        "--resume",
    );
    assert_bad_input(
        &[
            "backgammon",
            "label",
            "--out",
            path,
            "--games",
            "3",
            "--plies",
            "1",
            "--games-per-chunk",
            "1",
            "--seed",
            "4",
            "--no-bearoff",
            "--resume",
        ],
        "seed 3",
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    // Nor with --races-only added: the file's run looked at every position.
    let o = label(&file, "3", &["--resume", "--races-only"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(" races noise "), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    // A record changed by hand: its chunk's hash no longer matches.
    let line = before.lines().nth(2).unwrap();
    let changed = line.replacen(" 0.", " 0.9", 1);
    std::fs::write(&file, before.replacen(line, &changed, 1)).unwrap();
    let o = label(&file, "3", &["--resume"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("does not match its records"), "{err}");
    let out = dir.join("w.tnet");
    let out = out.to_str().unwrap();
    assert_bad_input(
        &["backgammon", "fit", "--labels", path, "--out", out],
        "does not match its records",
    );
    // Not a label file; missing file; bad numbers.
    let other = dir.join("other.txt");
    std::fs::write(&other, "hello\n").unwrap();
    assert_bad_input(
        &[
            "backgammon",
            "fit",
            "--labels",
            other.to_str().unwrap(),
            "--out",
            out,
        ],
        "not a Tabula label file",
    );
    assert_bad_input(
        &[
            "backgammon",
            "fit",
            "--labels",
            "/nonexistent/l.txt",
            "--out",
            out,
        ],
        "cannot read",
    );
    let fresh = dir.join("fresh.txt");
    let fresh = fresh.to_str().unwrap();
    let fit = ["backgammon", "fit", "--labels", path, "--out", out];
    let label = ["backgammon", "label", "--out", fresh, "--games", "1"];
    for (command, flag, value, needle) in [
        (&fit, "--patience", "0", "--patience"),
        (&fit, "--widen", "wide", "--widen"),
        (&label, "--plies", "0", "at least 1 ply"),
        (&label, "--plies", "4", "--plies 4"),
        (&label, "--noise", "2", "--noise"),
        (&label, "--gammons", "1.5", "--gammons"),
        (&label, "--games-per-chunk", "0", "--games-per-chunk"),
    ] {
        assert_bad_input(&[&command[..], &[flag, value]].concat(), needle);
    }
    // Rollout players' depth: 0 to 2, and only for rollout labels.
    for extra in [
        &["--rollout-plies", "1"][..],
        &["--rollout-trials", "2", "--rollout-plies", "3"],
    ] {
        assert_bad_input(&[&label[..], extra].concat(), "--rollout-plies");
    }
    assert!(!Path::new(out).exists());
    assert!(!Path::new(fresh).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--crashed-only` labels and `fit --crashed-net`: a weights file with a crashed net of its
/// own (3 nets), which the other commands load and play with; `--crashed-only` and
/// `--races-only` do not go together.
#[test]
fn crashed_labels_fit_a_crashed_net() {
    let dir = scratch("crashed");
    let labels = dir.join("crashed.txt");
    // A few hundred labels: on a hundred, 20 epochs may fit the training part without
    // improving the held-out part, and then nothing is written.
    ok(&label(
        &labels,
        "120",
        &["--crashed-only", "--threads", "2"],
    ));
    let text = std::fs::read_to_string(&labels).unwrap();
    assert!(text.lines().nth(1).unwrap().contains(" crashed noise "));
    let records = records(&text).count();
    assert!(records > 200, "{records} crashed labels in 120 games");
    // The shipped crashed net, fitted on them (`--crashed-net` keeps a crashed net the
    // weights have): it moves, the other nets do not. At the fit's default step size: the
    // shipped crashed net already fits these labels closely (0.016), and larger steps (0.005
    // and up, measured) overshoot, so that no epoch improves on the start and nothing is
    // written.
    let weights = dir.join("crashed.tnet");
    let (off, start) = off_weights(&dir);
    ok(&fit_20_epochs_at(
        &labels,
        &weights,
        "0.002",
        &["--crashed-net", "--weights", off.to_str().unwrap()],
    ));
    let file = tabula_gammon::NetFile::load(&weights).unwrap();
    let crashed = file.evaluator.crashed.as_ref().expect("a crashed net");
    assert_ne!(Some(crashed), start.evaluator.crashed.as_ref());
    assert_eq!(file.evaluator.contact, start.evaluator.contact);
    assert_eq!(file.evaluator.race, start.evaluator.race);
    assert_weights_play(&weights);
    let mut two = tabula_gammon::NetFile::decode(tabula_gammon::weights::BUILTIN).unwrap();
    two.evaluator.crashed = None;
    let plain = dir.join("plain.tnet");
    two.save(&plain, tabula_store::Existing::Refuse).unwrap();
    // Weights without a crashed net: --crashed-hidden needs --crashed-net.
    let fit_plain = |extra: &[&str]| {
        let mut args = vec![
            "backgammon",
            "fit",
            "--labels",
            labels.to_str().unwrap(),
            "--weights",
            plain.to_str().unwrap(),
            "--out",
            weights.to_str().unwrap(),
            "--force",
            "--hold-out",
            "3",
            "--epochs",
            "2",
            "--alpha",
            "0.05",
        ];
        args.extend_from_slice(extra);
        tabula(&args)
    };
    let o = fit_plain(&["--crashed-hidden", "100"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("add --crashed-net"));
    // A new crashed net is a copy of the contact net, so it starts with as many units.
    let units = two.evaluator.contact.hidden();
    let fewer = (units / 2).to_string();
    let o = fit_plain(&["--crashed-net", "--crashed-hidden", &fewer]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains(&format!("--crashed-hidden {fewer}: from the net's {units}")));
    let more = (units + 16).to_string();
    let o = fit_plain(&["--crashed-net", "--crashed-hidden", &more]);
    if o.status.success() {
        let file = tabula_gammon::NetFile::load(&weights).unwrap();
        assert_eq!(
            file.evaluator.crashed.as_ref().unwrap().hidden(),
            units + 16
        );
        assert_eq!(file.evaluator.contact.hidden(), units);
    } else {
        // Two epochs may not improve on the start: then the fit says so and writes nothing.
        assert!(String::from_utf8_lossy(&o.stderr).contains("no epoch improved"));
    }
    let o = label(
        &dir.join("both.txt"),
        "2",
        &["--crashed-only", "--races-only"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(!dir.join("both.txt").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--contact-only` labels only the contact net's class (contact, not crashed), so a fit on
/// them moves the contact net alone; it does not go with the other class options.
#[test]
fn contact_labels_train_the_contact_net_alone() {
    use tabula_engine::backgammon::Position;
    use tabula_gammon::net::NetClass;
    let dir = scratch("contact");
    let labels = dir.join("contact.txt");
    ok(&label(&labels, "6", &["--contact-only"]));
    let text = std::fs::read_to_string(&labels).unwrap();
    assert!(text.lines().nth(1).unwrap().contains(" contact noise "));
    let ids: Vec<&str> = records(&text)
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert!(ids.len() > 50, "{} contact labels in 6 games", ids.len());
    for id in &ids {
        let pos = Position::from_position_id(id).unwrap();
        assert_eq!(NetClass::of(&pos), NetClass::Contact, "{id}");
    }
    let weights = dir.join("contact.tnet");
    let (off, start) = off_weights(&dir);
    ok(&fit_20_epochs(
        &labels,
        &weights,
        &["--weights", off.to_str().unwrap()],
    ));
    let file = tabula_gammon::NetFile::load(&weights).unwrap();
    assert_ne!(file.evaluator.contact, start.evaluator.contact);
    assert_eq!(file.evaluator.race, start.evaluator.race);
    assert_eq!(file.evaluator.crashed, start.evaluator.crashed);
    for other in ["--crashed-only", "--races-only"] {
        let both = dir.join("both.txt");
        let o = label(&both, "2", &["--contact-only", other]);
        assert_eq!(o.status.code(), Some(2), "{other}");
        assert!(!both.exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--holding-lead` labels only the leaders' turns of holding games, says so in the header
/// and its progress line, and is refused (exit 2, one line, no file) with a class or a source
/// that cannot draw them, and out of range.
#[test]
fn holding_lead_labels_the_leaders_turns_only() {
    use tabula_engine::backgammon::{Position, Side};
    use tabula_gammon::label::is_holding_lead;
    let dir = scratch("holding");
    let labels = dir.join("holding.txt");
    let o = label(&labels, "6", &["--holding-lead", "20", "--siblings", "2"]);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stderr).contains("holding games' leaders on roll, 20+"));
    let text = std::fs::read_to_string(&labels).unwrap();
    assert!(text.lines().nth(1).unwrap().contains(" holding 20 noise "));
    let ids: Vec<&str> = records(&text)
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert!(!ids.is_empty());
    for id in &ids {
        let pos = Position::from_position_id(id).unwrap();
        assert!(is_holding_lead(&pos, 20), "{id}");
        assert!(
            pos.pips(Side::Opponent) >= pos.pips(Side::OnRoll) + 20,
            "{id}"
        );
    }
    for (extra, needle) in [
        (
            &["--holding-lead", "20", "--crashed-only"][..],
            "--crashed-only",
        ),
        (
            &["--holding-lead", "20", "--races-only"][..],
            "--races-only",
        ),
        (
            &["--holding-lead", "20", "--source", "late-hit"][..],
            "late-hit",
        ),
        (&["--holding-lead", "201"][..], "--holding-lead"),
        (&["--holding-lead", "-3"][..], "-3"),
    ] {
        let none = dir.join("none.txt");
        refused(&label(&none, "2", extra), needle);
        assert!(!none.exists(), "{extra:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The first number after `what` in `fit`'s first epoch line ("start, held out: N labels" or
/// "training (during the pass): N labels").
fn fit_count(stderr: &str, what: &str) -> usize {
    let line = stderr
        .lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no {what:?} in {stderr}"));
    let rest = &line[line.find(what).unwrap() + what.len()..];
    let n: String = rest
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    n.parse().unwrap_or_else(|_| panic!("{line}"))
}

/// `fit --anchor`: the anchor's labels are all trained on and none held out, so the weights are
/// chosen by the held-out part of `--labels` alone.
#[test]
fn anchor_labels_train_and_are_never_held_out() {
    let dir = scratch("anchor");
    let (labels, anchor) = (dir.join("labels.txt"), dir.join("anchor.txt"));
    ok(&label(&labels, "4", &[]));
    ok(&label(&anchor, "3", &[]));
    let count = |p: &Path| records(&std::fs::read_to_string(p).unwrap()).count();
    // The fits may not improve on the start (exit 2, nothing written): the counts are printed
    // either way.
    let stderr = |o: std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();
    let plain = stderr(fit_20_epochs(&labels, &dir.join("plain.tnet"), &[]));
    let anchored = stderr(fit_20_epochs(
        &labels,
        &dir.join("anchored.tnet"),
        &["--anchor", anchor.to_str().unwrap()],
    ));
    let (held, train) = ("start, held out:", "training (during the pass):");
    assert_eq!(
        fit_count(&plain, held),
        fit_count(&anchored, held),
        "{anchored}"
    );
    assert_eq!(
        fit_count(&plain, held) + fit_count(&plain, train),
        count(&labels)
    );
    assert!(count(&anchor) > 0);
    assert_eq!(
        fit_count(&anchored, train),
        fit_count(&plain, train) + count(&anchor),
        "{anchored}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The drawn sources (`--source late-hit`, `back-checkers`, `back-in-play`) label every drawn
/// position with `--keep 0`, crashed positions all; they do not go with the options that keep
/// other classes. `back-game` draws positions in contact, which `--contact-only` filters.
#[test]
fn drawn_sources_label_drawn_crashed_positions() {
    use tabula_engine::backgammon::Position;
    use tabula_gammon::net::NetClass;
    let dir = scratch("late-hit");
    for source in ["late-hit", "back-checkers", "back-in-play"] {
        let labels = dir.join(format!("{source}.txt"));
        ok(&label(&labels, "6", &["--source", source]));
        let text = std::fs::read_to_string(&labels).unwrap();
        assert!(text
            .lines()
            .nth(1)
            .unwrap()
            .contains(&format!(" source {source} ")));
        let ids: Vec<&str> = records(&text)
            .map(|l| l.split(' ').next().unwrap())
            .collect();
        assert_eq!(ids.len(), 6, "one label per drawn position");
        for id in ids {
            let pos = Position::from_position_id(id).unwrap();
            assert_eq!(NetClass::of(&pos), NetClass::Crashed, "{source} {id}");
        }
        for other in ["--races-only", "--contact-only"] {
            let out = dir.join("none.txt");
            let o = label(&out, "2", &["--source", source, other]);
            assert_eq!(o.status.code(), Some(2), "{other}");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains("crashed positions only") && err.contains(source));
            assert!(!out.exists());
        }
    }
    // Back games are in contact, crashed now and then: every drawn position is labelled,
    // --contact-only keeps those of the contact net, --races-only would keep none.
    let labels = dir.join("back-game.txt");
    ok(&label(&labels, "6", &["--source", "back-game"]));
    let text = std::fs::read_to_string(&labels).unwrap();
    assert!(text.lines().nth(1).unwrap().contains(" source back-game "));
    let ids: Vec<&str> = records(&text)
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(ids.len(), 6, "one label per drawn back game");
    for id in &ids {
        let pos = Position::from_position_id(id).unwrap();
        assert_ne!(NetClass::of(&pos), NetClass::Race, "{id}");
    }
    let contact = dir.join("back-game-contact.txt");
    ok(&label(
        &contact,
        "6",
        &["--source", "back-game", "--contact-only"],
    ));
    let text = std::fs::read_to_string(&contact).unwrap();
    let kept: Vec<&str> = records(&text)
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        kept,
        ids.iter()
            .copied()
            .filter(|id| NetClass::of(&Position::from_position_id(id).unwrap())
                == NetClass::Contact)
            .collect::<Vec<_>>(),
        "the same draws, the contact ones kept"
    );
    let out = dir.join("none.txt");
    let o = label(&out, "2", &["--source", "back-game", "--races-only"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("in contact only"));
    assert!(!out.exists());
    let o = label(&dir.join("bad.txt"), "2", &["--source", "late-hits"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--siblings K` labels the same games' path and the best other plays of each decision: the
/// path's records are all there, in order, with more between them; the header names K, and a
/// run without it does not resume the file. Drawn sources have no plays: bad input, as are K
/// above 8 and a word.
#[test]
fn siblings_add_the_best_other_plays_to_the_same_games() {
    let dir = scratch("siblings");
    let path = dir.join("path.txt");
    let wide = dir.join("wide.txt");
    ok(&label(&path, "3", &[]));
    ok(&label(&wide, "3", &["--siblings", "3"]));
    let (path_text, wide_text) = (
        std::fs::read_to_string(&path).unwrap(),
        std::fs::read_to_string(&wide).unwrap(),
    );
    assert!(wide_text
        .lines()
        .nth(1)
        .unwrap()
        .contains(" siblings 3 noise "));
    // Each record of a sibling run ends with its decision's number.
    let mut wide_records = records(&wide_text).map(|w| {
        let (record, decision) = w.rsplit_once(' ').unwrap();
        assert!(decision.starts_with('d'), "{w}");
        record
    });
    let mut on_path = 0;
    for r in records(&path_text) {
        assert!(wide_records.any(|w| w == r), "{r} kept, in order");
        on_path += 1;
    }
    assert!(records(&wide_text).count() > 2 * on_path);
    let o = label(&wide, "4", &["--resume"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("siblings 3"));
    for (extra, word) in [
        (
            &["--siblings", "2", "--source", "late-hit"][..],
            "--siblings",
        ),
        (&["--siblings", "9"][..], "--siblings"),
        (&["--siblings", "some"][..], "--siblings"),
    ] {
        let out = dir.join("none.txt");
        let o = label(&out, "1", extra);
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(word),
            "{extra:?}"
        );
        assert!(!out.exists());
    }

    // A file of the same run from before records named their decisions (version 1, its
    // chunk hashes right) is not resumed: its records would mix with numbered ones.
    let old = dir.join("old.txt");
    // Its records without their numbers, each chunk written as the library writes one.
    let read = LabelFile::read(&wide_text).unwrap();
    let mut text = format!("{MAGIC}\n# {}\n", read.parameters);
    for c in 0..read.chunks {
        let labels: Vec<Label> = read
            .labels
            .iter()
            .zip(&read.chunk_of)
            .filter(|&(_, &of)| of == c)
            .map(|(l, _)| Label {
                decision: None,
                ..*l
            })
            .collect();
        text.push_str(&chunk_text(c, &labels));
    }
    std::fs::write(&old, &text).unwrap();
    let model = dir.join("model.tnet");
    ok(&fit_20_epochs(&old, &model, &[]));
    let o = label(&old, "4", &["--siblings", "3", "--resume"]);
    refused(&o, "decision");
    assert_eq!(
        std::fs::read_to_string(&old).unwrap(),
        text,
        "left as it was"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `fit --rank W` trains on the differences between the results of each decision of a
/// sibling run, and says how the 0-ply choices among them compare with the labels'; it asks
/// for files whose records name their decisions, and a weight from 0 to 1000.
#[test]
fn rank_fits_the_results_of_each_decision() {
    let dir = scratch("rank");
    let wide = dir.join("wide.txt");
    // 12 games: on 6 (620 training labels) a fit from the random start did not lower the
    // held-out error in 20 epochs with stop 55's weights labelling; on 12 it falls 0.28 → 0.19.
    ok(&label(&wide, "12", &["--siblings", "3"]));
    let path = dir.join("path.txt");
    ok(&label(&path, "6", &[]));
    let out = dir.join("ranked.tnet");
    let (off, _) = off_weights(&dir);
    let off = off.to_str().unwrap();
    let o = fit_20_epochs(&wide, &out, &["--rank", "2", "--weights", off]);
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("decisions: 0-ply choice gives away"), "{err}");
    assert_weights_play(&out);
    // Without --rank the choices are still measured on such a file, not on the others.
    let plain = dir.join("plain.tnet");
    let o = fit_20_epochs(&wide, &plain, &["--weights", off]);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stderr).contains("decisions:"));
    assert_ne!(std::fs::read(&plain).unwrap(), std::fs::read(&out).unwrap());
    let o = fit_20_epochs(&path, &dir.join("p.tnet"), &["--weights", off]);
    ok(&o);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("decisions:"));
    // `--select choices` keeps the epoch whose held-out choices give away least, and only one
    // that gives away less than the start (the weights are then written, and play).
    let chosen = dir.join("chosen.tnet");
    let o = fit_20_epochs_at(
        &wide,
        &chosen,
        "0.01",
        &["--rank", "2", "--select", "choices"],
    );
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    let given = |line: &str| -> f64 {
        let after = line.split("gives away ").nth(1).expect(line);
        after.split(' ').next().unwrap().parse().unwrap()
    };
    let start = given(err.lines().next().unwrap());
    let epochs: Vec<f64> = err
        .lines()
        .filter(|l| l.starts_with("fit: epoch"))
        .map(given)
        .collect();
    assert_eq!(epochs.len(), 20, "{err}");
    let least = epochs.iter().cloned().fold(f64::INFINITY, f64::min);
    if least < start {
        ok(&o);
        let done = err.lines().find(|l| l.starts_with("fit: done")).unwrap();
        assert_eq!(given(done), least, "{err}");
        assert_weights_play(&chosen);
    } else {
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err
            .trim_end()
            .lines()
            .last()
            .unwrap()
            .contains("no epoch improved"));
        assert!(!chosen.exists());
    }
    let cases: [(&PathBuf, &str, &str); 6] = [
        (&path, "--rank=2", "--rank"),
        (&path, "--select=choices", "--select choices"),
        (&wide, "--rank=-1", "--rank"),
        (&wide, "--rank=nan", "--rank"),
        (&wide, "--rank=2000", "--rank"),
        (&wide, "--rank=x", "--rank"),
    ];
    for (labels, arg, needle) in cases {
        let none = dir.join("none.tnet");
        let o = fit_20_epochs(labels, &none, &[arg]);
        refused(&o, needle);
        assert!(!none.exists(), "{arg}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
