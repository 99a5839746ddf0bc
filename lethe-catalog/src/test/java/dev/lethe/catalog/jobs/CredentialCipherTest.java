package dev.lethe.catalog.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CredentialCipherTest {
  @TempDir Path tmp;

  @Test
  void encryptedPropertiesRoundTripAndHideTheirValues() {
    CredentialCipher c = CredentialCipher.loadOrCreate(null, tmp.resolve("k"));
    String sealed = c.encrypt(Map.of("s3.secret-access-key", "hunter2"));
    assertThat(sealed).startsWith("v1:").doesNotContain("hunter2");
    assertThat(c.encrypt(Map.of("a", "b"))).isNotEqualTo(c.encrypt(Map.of("a", "b"))); // fresh nonce
    assertThat(c.decrypt(sealed)).contains(Map.of("s3.secret-access-key", "hunter2"));
  }

  @Test
  void theGeneratedKeyFileIsReusedAndAnotherKeyCannotDecrypt() throws Exception {
    Path key = tmp.resolve("dir/purge.key");
    String sealed = CredentialCipher.loadOrCreate(null, key).encrypt(Map.of("a", "b"));
    assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(key))).isEqualTo("rw-------");
    assertThat(CredentialCipher.loadOrCreate(null, key).decrypt(sealed)).contains(Map.of("a", "b"));
    assertThat(CredentialCipher.loadOrCreate(null, tmp.resolve("other")).decrypt(sealed)).isEmpty();
    assertThat(CredentialCipher.loadOrCreate(null, key).decrypt("v1:garbage")).isEmpty();
  }

  @Test
  void aConfiguredKeyMustBeBase64OfAnAesKeyLength() {
    assertThatThrownBy(() -> CredentialCipher.loadOrCreate("***", tmp.resolve("k"))).hasMessageContaining("base64");
    assertThatThrownBy(() -> CredentialCipher.loadOrCreate("AAAA", tmp.resolve("k"))).hasMessageContaining("16, 24 or 32");
    assertThat(CredentialCipher.loadOrCreate("AAAAAAAAAAAAAAAAAAAAAA==", tmp.resolve("k"))).isNotNull();
  }
}
