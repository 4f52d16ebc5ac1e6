//! The bearoff databases against GNU Backgammon (landmark figures and a fixture of gnubg's own
//! databases, `scripts/gnubg-bearoff-fixture.py`), and the file format's defences.

use std::path::PathBuf;
use std::sync::OnceLock;

use tabula_engine::backgammon::{Position, Side};
use tabula_store::ErrorKind;
use tabula_tablebase::bearoff::{home_board, rank, Board, BoardError, OneSided, TwoSided};
use tabula_tablebase::Kind;

fn one_sided() -> &'static OneSided {
    static DB: OnceLock<OneSided> = OnceLock::new();
    DB.get_or_init(OneSided::build)
}

fn two_sided() -> &'static TwoSided {
    static DB: OnceLock<TwoSided> = OnceLock::new();
    DB.get_or_init(TwoSided::build)
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tablebase-tests");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn one_sided_landmarks() {
    let db = one_sided();
    assert_eq!(db.len(), 54_264);
    let one_on_six = [0, 0, 0, 0, 0, 1];
    assert!((db.mean_rolls(one_on_six).unwrap() - 1.25).abs() < 1e-12);
    assert_eq!(db.distribution(one_on_six).unwrap(), vec![0.0, 0.75, 0.25]);
    assert_eq!(db.mean_rolls([0; 6]).unwrap(), 0.0);
    assert_eq!(db.distribution([0; 6]).unwrap(), vec![1.0]);
    let ace = db.mean_rolls([15, 0, 0, 0, 0, 0]).unwrap();
    assert_eq!(format!("{ace:.3}"), "6.980");
    let six = db.mean_rolls([0, 0, 0, 0, 0, 15]).unwrap();
    assert_eq!(format!("{six:.3}"), "12.266");
    // The longest bear-off can take 30 rolls (90 pips, 3 a roll with 21s).
    let longest = db.distribution([0, 0, 0, 0, 0, 15]).unwrap();
    assert_eq!(longest.len(), 31);
    assert!(longest[30] > 0.0);
    let first = db.first_off_mean([0, 0, 0, 0, 0, 15]).unwrap();
    assert_eq!(format!("{first:.3}"), "1.616");
    // With a checker already off, the first one took no rolls.
    assert_eq!(db.first_off_distribution(one_on_six).unwrap(), vec![1.0]);
    assert_eq!(
        db.mean_rolls([0, 0, 0, 0, 1, 15]),
        Err(BoardError::TooManyCheckers {
            checkers: 16,
            max: 15
        })
    );
}

#[test]
fn one_sided_distributions_are_consistent() {
    let db = one_sided();
    for a in 0..=15u8 {
        for f in 0..=15 - a {
            let board = [a, 0, 0, 0, 0, f];
            let d = db.distribution(board).unwrap();
            let sum: f64 = d.iter().sum();
            assert!((sum - 1.0).abs() < 1e-12, "{board:?}");
            let mean: f64 = d.iter().enumerate().map(|(k, p)| k as f64 * p).sum();
            assert!((mean - db.mean_rolls(board).unwrap()).abs() < 1e-12);
            // Moving a checker down never makes the bear-off longer.
            if f > 0 {
                let lower = [a + 1, 0, 0, 0, 0, f - 1];
                assert!(db.mean_rolls(lower).unwrap() <= db.mean_rolls(board).unwrap());
            }
        }
    }
}

#[test]
fn two_sided_landmarks() {
    let db = two_sided();
    assert_eq!(db.len(), 924 * 924);
    let two = [0, 0, 0, 0, 0, 2];
    let p = db.win_probability(two, two).unwrap();
    assert!((p - 0.75449).abs() < 5e-6, "{p}");
    let e = db.equity(two, two).unwrap();
    assert_eq!(format!("{e:+.4}"), "+0.5090");
    assert_eq!(db.win_probability([1, 0, 0, 0, 0, 0], two).unwrap(), 1.0);
    assert_eq!(db.win_probability(two, [0; 6]).unwrap(), 0.0);
    assert!(matches!(
        db.equity([0, 0, 0, 0, 0, 7], two),
        Err(BoardError::TooManyCheckers {
            checkers: 7,
            max: 6
        })
    ));
    // The same through a gnubg Position ID.
    let pos = Position::from_position_id("YAAAAAMAAAAAAA").unwrap();
    let (me, opp) = (
        home_board(&pos, Side::OnRoll).unwrap(),
        home_board(&pos, Side::Opponent).unwrap(),
    );
    assert_eq!(db.win_probability(me, opp).unwrap(), p);
}

/// Both sides playing to win, or each to minimise its expected rolls (the one-sided database,
/// whose distributions give the winning chances of that race directly), hardly differ.
#[test]
fn two_sided_is_close_to_the_one_sided_race() {
    let (os, ts) = (one_sided(), two_sided());
    let boards: Vec<Board> = (0..924).map(tabula_tablebase::bearoff::unrank).collect();
    let dists: Vec<Vec<f64>> = boards
        .iter()
        .map(|&b| os.distribution(b).unwrap())
        .collect();
    let (mut worst, mut total, mut count) = (0.0f64, 0.0, 0);
    for (i, &us) in boards.iter().enumerate().skip(1).step_by(3) {
        for (j, &them) in boards.iter().enumerate().skip(1).step_by(5) {
            // The player on roll wins when it needs k rolls and the opponent at least k.
            let at_least = |k: usize| -> f64 { dists[j].iter().skip(k).sum() };
            let race: f64 = dists[i]
                .iter()
                .enumerate()
                .map(|(k, p)| p * at_least(k))
                .sum();
            let d = (ts.win_probability(us, them).unwrap() - race).abs();
            worst = worst.max(d);
            total += d;
            count += 1;
        }
    }
    // Measured: at most 0.0122, 0.0009 on average.
    assert!(worst < 0.02, "{worst}");
    assert!(total / (count as f64) < 0.002);
}

fn parse_board(s: &str) -> Board {
    let v: Vec<u8> = s.split(',').map(|x| x.parse().unwrap()).collect();
    v.try_into().unwrap()
}

fn parse_percentages(s: &str) -> Vec<f64> {
    s.split(',')
        .map(|x| x.parse::<f64>().unwrap() / 100.0)
        .collect()
}

/// gnubg prints means and percentages to 3 decimals, from 16-bit probabilities rounded at
/// every position of its recursion (measured: means within 0.00051, probabilities within
/// 0.000088), and equities to 4 decimals from 16-bit values of its single-precision
/// recursion (measured: within 0.00011, where an exact recursion in Python agrees with ours
/// to 1e-15). gnubg's index of every board is ours.
#[test]
fn agrees_with_gnubg_fixture() {
    let text = include_str!("data/gnubg-bearoff.txt");
    let (os, ts) = (one_sided(), two_sided());
    let (mut n_os, mut n_ts) = (0, 0);
    let (mut worst_mean, mut worst_p, mut worst_eq) = (0.0f64, 0.0f64, 0.0f64);
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f[0] {
            "os" => {
                let board = parse_board(f[1]);
                assert_eq!(rank(&board), f[2].parse::<usize>().unwrap(), "{line}");
                let mean: f64 = f[3].parse().unwrap();
                let first_mean: f64 = f[4].parse().unwrap();
                worst_mean = worst_mean
                    .max((os.mean_rolls(board).unwrap() - mean).abs())
                    .max((os.first_off_mean(board).unwrap() - first_mean).abs());
                for (ours, theirs) in [
                    (os.distribution(board).unwrap(), parse_percentages(f[5])),
                    (
                        os.first_off_distribution(board).unwrap(),
                        parse_percentages(f[6]),
                    ),
                ] {
                    for k in 0..ours.len().max(theirs.len()) {
                        let a = ours.get(k).copied().unwrap_or(0.0);
                        let b = theirs.get(k).copied().unwrap_or(0.0);
                        worst_p = worst_p.max((a - b).abs());
                    }
                }
                n_os += 1;
            }
            "ts" => {
                let equity: f64 = f[3].parse().unwrap();
                let ours = ts.equity(parse_board(f[1]), parse_board(f[2])).unwrap();
                worst_eq = worst_eq.max((ours - equity).abs());
                n_ts += 1;
            }
            other => panic!("unknown fixture line kind {other:?}"),
        }
    }
    assert!(n_os >= 40 && n_ts >= 20, "{n_os} {n_ts}");
    assert!(worst_mean <= 0.0006, "mean off by {worst_mean}");
    assert!(worst_p <= 0.0001, "probability off by {worst_p}");
    assert!(worst_eq <= 0.00015, "equity off by {worst_eq}");
}

#[test]
fn files_round_trip() {
    let os_path = scratch("round-trip-os.tdb");
    one_sided().save(&os_path).unwrap();
    assert!(!scratch("round-trip-os.tdb.lock").exists());
    assert_eq!(&OneSided::load(&os_path).unwrap(), one_sided());
    let ts_path = scratch("round-trip-ts.tdb");
    two_sided().save(&ts_path).unwrap();
    assert_eq!(&TwoSided::load(&ts_path).unwrap(), two_sided());
    // Each kind refuses the other.
    assert!(matches!(
        OneSided::load(&ts_path).unwrap_err().kind(),
        ErrorKind::WrongKind {
            expected: Kind::BearoffOneSided,
            found: 2
        }
    ));
    assert!(matches!(
        TwoSided::load(&os_path).unwrap_err().kind(),
        ErrorKind::WrongKind { .. }
    ));
}

#[test]
fn bad_files_are_rejected() {
    let good = scratch("bad-files-good.tdb");
    one_sided().save(&good).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let bad = scratch("bad-files-bad.tdb");
    let load = |data: &[u8]| {
        std::fs::write(&bad, data).unwrap();
        OneSided::load(&bad).map_err(|e| e.into_kind())
    };
    // Truncated anywhere: in the header, in the payload, by one byte.
    for len in [0, 5, 20, 47, 48, 1000, bytes.len() / 2, bytes.len() - 1] {
        let err = load(&bytes[..len]).unwrap_err();
        assert!(matches!(err, ErrorKind::Truncated { .. }), "{len}: {err}");
    }
    // A flipped byte anywhere is caught (header fields, checksums, payload).
    let step = bytes.len() / 97;
    for at in (0..48).chain((48..bytes.len()).step_by(step)) {
        let mut b = bytes.clone();
        b[at] ^= 0x10;
        assert!(load(&b).is_err(), "flip at {at} accepted");
    }
    let mut b = bytes.clone();
    let last = b.len() - 1;
    b[last] ^= 1;
    let err = load(&b).unwrap_err();
    assert!(matches!(err, ErrorKind::Corrupt { .. }), "{err}");
    // Trailing garbage, wrong magic, another version.
    let mut b = bytes.clone();
    b.push(0);
    assert!(matches!(load(&b), Err(ErrorKind::TrailingBytes { .. })));
    let mut b = bytes.clone();
    b[0] = b'X';
    assert!(matches!(load(&b), Err(ErrorKind::BadMagic)));
    let mut b = bytes.clone();
    b[8] = 9;
    assert!(matches!(
        load(&b),
        Err(ErrorKind::UnsupportedVersion { found: 9 })
    ));
    // A missing file, a directory, a device.
    let err = OneSided::load(scratch("does-not-exist.tdb")).unwrap_err();
    assert!(err.is_not_found(), "{err}");
    assert!(err.to_string().contains("does-not-exist.tdb"));
    let dir = scratch("a-directory.tdb");
    std::fs::create_dir_all(&dir).unwrap();
    assert!(matches!(
        OneSided::load(&dir).unwrap_err().kind(),
        ErrorKind::NotAFile
    ));
    #[cfg(unix)]
    assert!(matches!(
        OneSided::load("/dev/zero").unwrap_err().kind(),
        ErrorKind::NotAFile
    ));
}

#[test]
fn intact_files_with_impossible_values_are_rejected() {
    use tabula_store::{encode, DEFAULT_BLOCK};
    let bad = scratch("impossible-ts.tdb");
    let mut payload = vec![0u8; 8 * 924 * 924];
    payload[8..16].copy_from_slice(&1.5f64.to_le_bytes());
    let file = encode(
        Kind::BearoffTwoSided,
        TwoSided::CONTEXT,
        &payload,
        DEFAULT_BLOCK,
    );
    std::fs::write(&bad, file).unwrap();
    let err = TwoSided::load(&bad).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::BadPayload { .. }), "{err}");
    // The right kind for other checkers is another context.
    let file = encode(
        Kind::BearoffOneSided,
        "game=backgammon;db=bearoff-os;points=6;checkers=14",
        &[],
        DEFAULT_BLOCK,
    );
    std::fs::write(&bad, file).unwrap();
    assert!(matches!(
        OneSided::load(&bad).unwrap_err().kind(),
        ErrorKind::WrongContext { .. }
    ));
}

#[test]
fn truncated_and_flipped_two_sided_files_are_rejected() {
    let good = scratch("bad-ts-good.tdb");
    two_sided().save(&good).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let bad = scratch("bad-ts-bad.tdb");
    std::fs::write(&bad, &bytes[..bytes.len() - 8]).unwrap();
    assert!(matches!(
        TwoSided::load(&bad).unwrap_err().kind(),
        ErrorKind::Truncated { .. }
    ));
    let mut b = bytes.clone();
    b[1000] ^= 0x80;
    std::fs::write(&bad, &b).unwrap();
    assert!(matches!(
        TwoSided::load(&bad).unwrap_err().kind(),
        ErrorKind::Corrupt { block: 0 }
    ));
}

/// The race database of 8 points against GNU Backgammon's own (`makebearoff -o 8`), on the
/// boards of `tests/data/gnubg-race8.txt` (`scripts/gnubg-bearoff-fixture.py --race`): every
/// board has a checker on its 7- or 8-point. gnubg prints percentages to three decimals and
/// stores them as 16-bit fractions (steps of 0.0015%), building each board from its children's
/// rounded values, so its figures drift from the exact ones by a few steps: the largest
/// difference measured here is 0.0077 percentage points. Means to three decimals.
#[test]
fn race_database_agrees_with_gnubg() {
    use tabula_tablebase::bearoff::RaceTable;
    let text = include_str!("data/gnubg-race8.txt");
    let race = RaceTable::build(8);
    let floats = |s: &str| -> Vec<f64> { s.split(',').map(|x| x.parse().unwrap()).collect() };
    let (mut boards, mut worst) = (0, 0.0f64);
    for line in text.lines().filter(|l| l.starts_with("race ")) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let board: Vec<u8> = f[1].split(',').map(|x| x.parse().unwrap()).collect();
        let mut counts = [0u8; 25];
        counts[..8].copy_from_slice(&board);
        let (mean, first_mean) = (f[2].parse::<f64>().unwrap(), f[3].parse::<f64>().unwrap());
        let ours = race.mean_rolls(&counts).unwrap();
        assert!((ours - mean).abs() < 0.0011, "{line}: mean {ours}");
        let ours = race.first_off_mean(&counts).unwrap();
        assert!((ours - first_mean).abs() < 0.0011, "{line}: first {ours}");
        for (theirs, ours) in [
            (floats(f[4]), race.distribution(&counts).unwrap()),
            (floats(f[5]), race.first_off_distribution(&counts).unwrap()),
        ] {
            for k in 0..theirs.len().max(ours.len()) {
                let (a, b) = (
                    theirs.get(k).unwrap_or(&0.0),
                    100.0 * ours.get(k).unwrap_or(&0.0),
                );
                worst = worst.max((a - b).abs());
                assert!((a - b).abs() < 0.01, "{line}: {k} rolls: {b:.4}%");
            }
        }
        boards += 1;
    }
    assert_eq!(boards, 51);
    eprintln!("largest difference from gnubg: {worst:.4} percentage points");
}
