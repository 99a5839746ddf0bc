package dev.lethe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The one bounded-number reader: absent → default, otherwise a whole number inside the bounds or a ConfigException naming the key. */
class ConfigNumbersTest {
  @Test
  void examples() {
    assertThat(ConfigNumbers.number(Map.of(), "k", 7, 1, 3)).isEqualTo(7); // the default is not bounded
    assertThat(ConfigNumbers.number(Map.of("k", " 3 "), "k", 7, 1, 3)).isEqualTo(3);
    assertThatThrownBy(() -> ConfigNumbers.number(Map.of("k", "4"), "k", 7, 1, 3))
        .isInstanceOf(ConfigException.class).hasMessage("Invalid k: 4 is outside 1..3");
    assertThatThrownBy(() -> ConfigNumbers.number(Map.of("k", "x"), "k", 7, 1, 3))
        .isInstanceOf(ConfigException.class).hasMessage("Invalid k: not a number: x");
    assertThatThrownBy(() -> ConfigNumbers.number(Map.of("k", ""), "k", 7, 1, 3))
        .isInstanceOf(ConfigException.class).hasMessage("Invalid k: not a number: ");
  }

  @Test
  void seededValuesAreAcceptedExactlyInsideTheBounds() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int i = 0; i < 2000; i++) {
      long min = random.nextInt(200) - 100;
      long max = min + random.nextInt(200);
      long v = random.nextInt(500) - 250;
      Map<String, String> values = Map.of("k", Long.toString(v));
      if (v >= min && v <= max) {
        assertThat(ConfigNumbers.number(values, "k", 0, min, max)).as("seed %d", seed).isEqualTo(v);
      } else {
        assertThatThrownBy(() -> ConfigNumbers.number(values, "k", 0, min, max)).as("seed %d", seed)
            .isInstanceOf(ConfigException.class).hasMessage("Invalid k: " + v + " is outside " + min + ".." + max);
      }
    }
  }
}
