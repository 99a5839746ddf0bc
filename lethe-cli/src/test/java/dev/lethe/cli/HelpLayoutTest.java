package dev.lethe.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every help screen reads as written: a description given as several lines keeps each line whole.
 * picocli wraps a line longer than the usage width, which left orphan words on lines of their own
 * ("…, including keys" / "one store cannot hold…" in {@code lethe store sync --help}).
 */
class HelpLayoutTest {

  @Test
  void everyLineOfAMultiLineDescriptionFitsTheUsageWidth() {
    List<String> tooLong = new ArrayList<>();
    walk(LetheCommand.commandLine(), tooLong);
    assertThat(tooLong).as("description lines wider than the help screen (they wrap and leave orphans)").isEmpty();
  }

  @Test
  void everyHelpScreenEndsWithTheExitCodes() {
    List<String> without = new ArrayList<>();
    java.util.Deque<CommandLine> todo = new java.util.ArrayDeque<>(List.of(LetheCommand.commandLine()));
    while (!todo.isEmpty()) {
      CommandLine c = todo.pop();
      todo.addAll(c.getSubcommands().values());
      if (c.getCommandSpec().mixinStandardHelpOptions() && !c.getUsageMessage().contains("Exit codes:")) {
        without.add(c.getCommandSpec().qualifiedName());
      }
    }
    assertThat(without).as("help screens without the exit codes").isEmpty();
  }

  private static void walk(CommandLine cl, List<String> tooLong) {
    CommandLine.Model.UsageMessageSpec usage = cl.getCommandSpec().usageMessage();
    String[] description = usage.description();
    if (description.length > 1) {
      for (String line : description) {
        String shown = String.format(line);
        if (shown.length() > usage.width()) {
          tooLong.add(cl.getCommandSpec().qualifiedName() + ": " + shown.length() + " > " + usage.width() + ": " + shown);
        }
      }
    }
    for (CommandLine sub : cl.getSubcommands().values()) {
      walk(sub, tooLong);
    }
  }
}
