package dev.idem.cli;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * "Did you mean ...?" for a mistyped command or option. picocli's own suggestions compare letter pairs,
 * which finds nothing for a dropped letter in a short word ({@code rn}); an edit distance (insertions,
 * deletions, substitutions and swaps of adjacent letters) catches the typos people make.
 */
final class Suggestions {
  private Suggestions() {}

  /** The closest commands or options to the first unmatched argument, best first; empty when none is close. */
  static List<String> of(UnmatchedArgumentException e) {
    List<String> unmatched = e.getUnmatched();
    if (unmatched.isEmpty()) {
      return List.of();
    }
    return closest(optionWord(unmatched.get(0)), e.getCommandLine().getCommandSpec());
  }

  /**
   * The first argument before {@code --} that looks like an option but is none of {@code spec}'s (or
   * its parents'), or {@code null}. picocli reports missing required options before unknown ones, so
   * {@code idem key --pipline p} would otherwise say "--pipeline is missing" and never name the typo.
   */
  static String unknownOption(String[] args, CommandSpec spec) {
    for (String arg : args) {
      if (arg.equals("--")) {
        return null;
      }
      if (arg.startsWith("-") && arg.length() > 1 && !isOption(optionWord(arg), spec)) {
        return optionWord(arg);
      }
    }
    return null;
  }

  /** The closest commands (for a word) or options (for a {@code -}word) of {@code spec}, best first. */
  static List<String> closest(String word, CommandSpec spec) {
    Collection<String> candidates = new ArrayList<>();
    if (word.startsWith("-")) {
      for (OptionSpec o : spec.options()) {
        candidates.addAll(List.of(o.names()));
      }
    } else {
      candidates.addAll(spec.subcommands().keySet());
    }
    return closest(word, candidates);
  }

  /** The closest of {@code candidates} to {@code word}, best first; empty when none is close. */
  static List<String> closest(String word, Collection<String> candidates) {
    // Allow one edit in short words, about one in three in longer ones: beyond that a "suggestion" is noise.
    int max = Math.max(1, word.replaceFirst("^-+", "").length() / 3);
    return candidates.stream()
        .filter(c -> distance(word, c) <= max)
        .sorted(Comparator.comparingInt((String c) -> distance(word, c)).thenComparing(c -> c))
        .limit(3)
        .toList();
  }

  private static String optionWord(String arg) {
    int eq = arg.indexOf('=');
    return arg.startsWith("-") && eq > 0 ? arg.substring(0, eq) : arg;
  }

  private static boolean isOption(String word, CommandSpec spec) {
    for (CommandSpec s = spec; s != null; s = s.parent()) {
      if (s.findOption(word) != null) {
        return true;
      }
    }
    return false;
  }

  /** Optimal string alignment distance: Levenshtein plus transposition of two adjacent characters. */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
