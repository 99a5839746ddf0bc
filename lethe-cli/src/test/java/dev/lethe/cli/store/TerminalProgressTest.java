package dev.lethe.cli.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class TerminalProgressTest {

  @Test
  void onATerminalTheBarRedrawsInPlaceAndEndsTheLine() {
    StringWriter w = new StringWriter();
    try (TerminalProgress p = new TerminalProgress(new PrintWriter(w), "reset", true)) {
      p.update(1, 2);
      p.update(2, 2);
    }
    assertThat(w.toString()).isEqualTo("\rreset [###############               ] 1/2"
        + "\rreset [##############################] 2/2" + System.lineSeparator());
  }

  @Test
  void whenPipedNothingIsDrawn() {
    StringWriter w = new StringWriter();
    try (TerminalProgress p = new TerminalProgress(new PrintWriter(w), "reset", false)) {
      p.update(1, 2);
    }
    assertThat(w.toString()).isEmpty();
  }
}
