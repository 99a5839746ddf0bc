package dev.lethe.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.iceberg.rest.requests.CreateNamespaceRequest;
import org.junit.jupiter.api.Test;

/** A request body is exactly one JSON value: what {@link IcebergJson#read} answers for what follows it. */
class IcebergJsonTest {
  private final IcebergJson json = new IcebergJson();

  private String refusal(String body) {
    try {
      json.read(body.getBytes(StandardCharsets.UTF_8), CreateNamespaceRequest.class);
    } catch (IcebergJson.BadRequestBodyException e) {
      return e.getMessage();
    }
    throw new AssertionError("accepted: " + body);
  }

  private static String trailing(String token) {
    return "Invalid request body: trailing token " + token + " after the JSON value (a body is exactly one JSON value)";
  }

  @Test
  void aSecondValueIsRefusedNamingItsFirstToken() {
    String one = "{\"namespace\":[\"a\"]}";
    assertThat(refusal(one + " {\"namespace\":[\"b\"]}")).isEqualTo(trailing("START_OBJECT"));
    assertThat(refusal(one + "[]")).isEqualTo(trailing("START_ARRAY"));
    assertThat(refusal(one + "\n1")).isEqualTo(trailing("VALUE_NUMBER_INT"));
    assertThat(refusal(one + " \"x\"")).isEqualTo(trailing("VALUE_STRING"));
    assertThat(refusal(one + " true")).isEqualTo(trailing("VALUE_TRUE"));
    assertThat(refusal(one + " null")).isEqualTo(trailing("VALUE_NULL"));
    assertThat(refusal(one + "garbage")).startsWith("Invalid request body: malformed JSON for CreateNamespaceRequest: ");
    assertThat(refusal("   ")).isEqualTo("Invalid request body: no JSON value");
    assertThat(json.read((one + " \n\t ").getBytes(StandardCharsets.UTF_8), CreateNamespaceRequest.class).namespace().levels())
        .containsExactly("a");
  }

  @Test
  void seededTrailersAreRefusedAndNothingElseIs() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    String[][] trailers = {{"{}", "START_OBJECT"}, {"[1]", "START_ARRAY"}, {"7", "VALUE_NUMBER_INT"}, {"1.5", "VALUE_NUMBER_FLOAT"},
        {"\"s\"", "VALUE_STRING"}, {"false", "VALUE_FALSE"}, {"null", "VALUE_NULL"}};
    String[] spaces = {"", " ", "\n", "\t", "\r\n "};
    for (int i = 0; i < 500; i++) {
      String pad = spaces[random.nextInt(spaces.length)];
      String body = pad + "{\"namespace\":[\"n" + i + "\"]}" + pad;
      if (random.nextBoolean()) {
        String[] t = trailers[random.nextInt(trailers.length)];
        String sep = t[0].startsWith("{") || t[0].startsWith("[") || t[0].startsWith("\"") ? pad : " ";
        assertThat(refusal(body + sep + t[0])).as("seed %d: %s", seed, body + sep + t[0]).isEqualTo(trailing(t[1]));
      } else {
        assertThat(json.read(body.getBytes(StandardCharsets.UTF_8), CreateNamespaceRequest.class).namespace().levels())
            .as("seed %d: %s", seed, body).containsExactly("n" + i);
      }
    }
  }
}
