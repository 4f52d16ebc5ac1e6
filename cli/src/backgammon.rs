//! `tabula backgammon …`: show positions, list and check plays, in gnubg's formats.

use crate::error::{CliError, CliResult};
use clap::{Args as ClapArgs, Subcommand};
use serde_json::json;
use tabula_engine::backgammon::{met, Dice, MatchId, Position, Side, Xgid, BAR};

#[derive(ClapArgs, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the board with pip counts (and the match state when one is given).
    Show {
        #[command(flatten)]
        common: Common,
    },
    /// List every legal play for a roll in gnubg notation, with the Position ID after it.
    Moves {
        #[command(flatten)]
        common: Common,
        /// The roll, e.g. 31 (default: the dice of the XGID or Match ID, if rolled).
        #[arg(long, short)]
        dice: Option<String>,
    },
    /// Check a play in gnubg notation and print the Position ID after it.
    Play {
        #[command(flatten)]
        common: Common,
        /// The roll, e.g. 31 (default: the dice of the XGID or Match ID, if rolled).
        #[arg(long, short)]
        dice: Option<String>,
        /// The play, e.g. "8/5 6/5", "bar/22*", "6/off", "8/5(2)".
        #[arg(long = "play", allow_hyphen_values = true)]
        play: String,
    },
}

#[derive(ClapArgs, Debug)]
struct Common {
    /// gnubg Position ID (`4HPwATDgc/ABMA`), gnubg ID (`<position>:<match>`) or XGID
    /// (default: the opening position).
    #[arg(
        long,
        short,
        default_value = "4HPwATDgc/ABMA",
        allow_hyphen_values = true
    )]
    position: String,
    /// gnubg Match ID (`cAkAAAAAAAAA`) for the match state.
    #[arg(long = "match-id", short = 'm')]
    match_id: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// A position with the match state that came with it, if any.
struct Input {
    position: Position,
    match_id: Option<MatchId>,
}

impl Common {
    fn input(&self) -> Result<Input, CliError> {
        let text = self.position.trim();
        let (position, mut match_id) = if text.starts_with("XGID=") || text.len() > 40 {
            let x = Xgid::parse(text).map_err(|e| CliError::new(format!("invalid XGID: {e}")))?;
            (x.position, Some(x.match_id()))
        } else if let Some((p, m)) = text.split_once(':') {
            (parse_position(p)?, Some(parse_match_id(m)?))
        } else {
            (parse_position(text)?, None)
        };
        if let Some(m) = &self.match_id {
            match_id = Some(parse_match_id(m)?);
        }
        Ok(Input { position, match_id })
    }
}

fn parse_position(id: &str) -> Result<Position, CliError> {
    Position::from_position_id(id)
        .map_err(|e| CliError::new(format!("invalid Position ID {id:?}: {e}")))
}

fn parse_match_id(id: &str) -> Result<MatchId, CliError> {
    MatchId::decode(id).map_err(|e| CliError::new(format!("invalid Match ID {id:?}: {e}")))
}

fn dice_for(arg: &Option<String>, input: &Input) -> Result<Dice, CliError> {
    match (arg, input.match_id) {
        (Some(d), _) => d
            .parse()
            .map_err(|e| CliError::new(format!("invalid dice: {e}"))),
        (None, Some(m)) if m.dice.0 > 0 => {
            Dice::new(m.dice.0, m.dice.1).map_err(|e| CliError::new(format!("invalid dice: {e}")))
        }
        _ => Err(CliError::new("no dice: give --dice, e.g. --dice 31")),
    }
}

pub fn run(args: Args) -> CliResult {
    match args.command {
        Command::Show { common } => show(&common),
        Command::Moves { common, dice } => moves(&common, &dice),
        Command::Play { common, dice, play } => play_cmd(&common, &dice, &play),
    }
}

/// The board in gnubg's text layout: the player on roll is X and moves from the top left
/// round to its home board at the bottom right; O is the opponent.
pub fn board_diagram(pos: &Position) -> String {
    let me = pos.counts(Side::OnRoll);
    let opp = pos.counts(Side::Opponent);
    // (char, count) on X's point p.
    let cell = |p: usize| -> (char, u8) {
        if me[p - 1] > 0 {
            ('X', me[p - 1])
        } else if opp[24 - p] > 0 {
            ('O', opp[24 - p])
        } else {
            (' ', 0)
        }
    };
    let mark = |p: usize, row: u8| -> String {
        let (c, n) = cell(p);
        if n > row && (row < 4 || n <= 5) {
            format!(" {c} ")
        } else if row == 4 && n > 5 {
            format!("{n:^3}")
        } else {
            "   ".to_string()
        }
    };
    let half = |points: [usize; 12], row: u8, bar: String| -> String {
        let left: String = points[..6].iter().map(|&p| mark(p, row)).collect();
        let right: String = points[6..].iter().map(|&p| mark(p, row)).collect();
        format!(" |{left}|{bar}|{right}|\n")
    };
    let top = [13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24];
    let bottom = [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1];
    let bar_cell = |c: char, n: u8, row: u8| -> String {
        if n > row {
            if row == 4 && n > 5 {
                format!("{n:^3}")
            } else {
                format!(" {c} ")
            }
        } else {
            "   ".to_string()
        }
    };
    let mut out = String::from(" +13-14-15-16-17-18------19-20-21-22-23-24-+\n");
    for row in 0..5 {
        out.push_str(&half(top, row, bar_cell('O', opp[BAR], row)));
    }
    out.push_str(" |                  |BAR|                  |\n");
    for row in (0..5).rev() {
        out.push_str(&half(bottom, row, bar_cell('X', me[BAR], row)));
    }
    out.push_str(" +12-11-10--9--8--7-------6--5--4--3--2--1-+\n");
    out
}

fn side_json(pos: &Position, side: Side) -> serde_json::Value {
    json!({
        "pips": pos.pips(side),
        "bar": pos.bar(side),
        "off": pos.off(side),
        "points": pos.counts(side)[..24].to_vec(),
    })
}

fn match_lines(m: &MatchId) -> Vec<String> {
    let mut lines = Vec::new();
    let owner = match m.cube_owner {
        None => "centred".to_string(),
        Some(p) => format!("owned by player {p}"),
    };
    if m.match_length == 0 {
        lines.push(format!("Money game; cube {} {owner}", m.cube));
    } else {
        lines.push(format!(
            "Match to {}; score {}-{} (players 0-1); cube {} {owner}{}",
            m.match_length,
            m.score[0],
            m.score[1],
            m.cube,
            if m.crawford { "; Crawford game" } else { "" }
        ));
    }
    let dice = if m.dice.0 > 0 {
        format!(", rolled {}{}", m.dice.0, m.dice.1)
    } else {
        String::new()
    };
    lines.push(format!("Player {} on roll{dice}", m.on_roll));
    if let Some(eq) = equity(m) {
        lines.push(format!(
            "Match winning chance of player {} (Kazaross-XG2): {eq:.5}",
            m.on_roll
        ));
    }
    lines
}

/// Match winning chance of the player on roll before the game at this score.
fn equity(m: &MatchId) -> Option<f64> {
    if m.match_length == 0 {
        return None;
    }
    let away = |p: usize| m.match_length.checked_sub(m.score[p]);
    let me = m.on_roll as usize;
    let (a, b) = (away(me)?, away(1 - me)?);
    let post = !m.crawford && (a == 1 || b == 1);
    met::match_equity(a, b, post)
}

fn show(common: &Common) -> CliResult {
    let input = common.input()?;
    let pos = input.position;
    let xgid = Xgid::new(pos).to_string();
    if common.json {
        let mut v = json!({
            "position": pos.position_id(),
            "xgid": xgid,
            "on_roll": side_json(&pos, Side::OnRoll),
            "opponent": side_json(&pos, Side::Opponent),
        });
        if let Some(m) = input.match_id {
            v["match"] = json!({
                "match_id": m.encode(),
                "length": m.match_length,
                "score": m.score,
                "cube": m.cube,
                "cube_owner": m.cube_owner,
                "crawford": m.crawford,
                "on_roll": m.on_roll,
                "dice": [m.dice.0, m.dice.1],
                "match_equity": equity(&m),
            });
        }
        println!("{v}");
        return Ok(());
    }
    println!(" Position ID: {}", pos.position_id());
    if let Some(m) = input.match_id {
        println!(" Match ID   : {}", m.encode());
    }
    print!("{}", board_diagram(&pos));
    for (name, side) in [("X (on roll)", Side::OnRoll), ("O", Side::Opponent)] {
        println!(
            " {name}: pips {}, bar {}, off {}",
            pos.pips(side),
            pos.bar(side),
            pos.off(side)
        );
    }
    if let Some(m) = input.match_id {
        for line in match_lines(&m) {
            println!(" {line}");
        }
    }
    Ok(())
}

fn moves(common: &Common, dice: &Option<String>) -> CliResult {
    let input = common.input()?;
    let dice = dice_for(dice, &input)?;
    let plays = input.position.plays(dice);
    if common.json {
        let list: Vec<_> = plays
            .iter()
            .map(|p| json!({"play": p.notation(), "position": p.result().position_id()}))
            .collect();
        println!("{}", json!({ "moves": list }));
        return Ok(());
    }
    if plays.is_empty() {
        println!("No legal play for {dice}.");
    }
    let width = plays.iter().map(|p| p.notation().len()).max().unwrap_or(0);
    for p in &plays {
        println!("{:width$}  {}", p.notation(), p.result().position_id());
    }
    Ok(())
}

fn play_cmd(common: &Common, dice: &Option<String>, text: &str) -> CliResult {
    let input = common.input()?;
    let dice = dice_for(dice, &input)?;
    let play = input
        .position
        .parse_play(dice, text)
        .map_err(|e| CliError::new(e.to_string()))?;
    if common.json {
        println!(
            "{}",
            json!({"play": play.notation(), "position": play.result().position_id()})
        );
    } else {
        println!("{}  {}", play.notation(), play.result().position_id());
    }
    Ok(())
}
