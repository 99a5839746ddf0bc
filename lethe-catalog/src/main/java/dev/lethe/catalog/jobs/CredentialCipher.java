package dev.lethe.catalog.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encrypts the FileIO properties a cleanup job captures at drop time (docs/design/0201-cleanup-jobs.md §11): AES-GCM
 * with a 256-bit key, a fresh 96-bit nonce per value, stored as {@code v1:<base64(nonce ‖
 * ciphertext ‖ tag)>}.
 *
 * <p>Thread-safe. The key comes from configuration or from a key file created on first start.
 */
public final class CredentialCipher {
  private static final String PREFIX = "v1:";
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final SecretKeySpec key;
  private final SecureRandom random = new SecureRandom();

  /**
   * @param key 16, 24 or 32 bytes
   * @throws IllegalArgumentException on another length
   */
  public CredentialCipher(byte[] key) {
    if (key.length != 16 && key.length != 24 && key.length != 32) {
      throw new IllegalArgumentException("AES key must be 16, 24 or 32 bytes, got " + key.length);
    }
    this.key = new SecretKeySpec(key.clone(), "AES");
  }

  /**
   * The cipher of a configured base64 key, else of the key in {@code keyFile}, creating that file
   * (owner read/write only) with a random 32-byte key if it does not exist.
   *
   * @param configuredBase64 base64 key from configuration, or null/blank to use the file
   * @throws IllegalArgumentException if the configured key is not base64 of 16/24/32 bytes
   * @throws UncheckedIOException if the key file cannot be read or written
   */
  public static CredentialCipher loadOrCreate(String configuredBase64, Path keyFile) {
    if (configuredBase64 != null && !configuredBase64.isBlank()) {
      byte[] key;
      try {
        key = Base64.getDecoder().decode(configuredBase64.trim());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("not base64");
      }
      return new CredentialCipher(key);
    }
    try {
      if (!Files.exists(keyFile)) {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        Files.createDirectories(keyFile.toAbsolutePath().getParent());
        try {
          Files.createFile(keyFile);
          try {
            Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
          } catch (UnsupportedOperationException notPosix) {
            // best effort on non-POSIX file systems
          }
          Files.writeString(keyFile, Base64.getEncoder().encodeToString(key) + "\n", StandardCharsets.US_ASCII);
        } catch (FileAlreadyExistsException raced) {
          // another process created it; read theirs
        }
      }
      return new CredentialCipher(Base64.getDecoder().decode(Files.readString(keyFile, StandardCharsets.US_ASCII).trim()));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read or create purge key file " + keyFile, e);
    }
  }

  /** Encrypts a property map (sorted JSON inside). */
  public String encrypt(Map<String, String> properties) {
    try {
      byte[] plain = JSON.writeValueAsBytes(new TreeMap<>(properties));
      byte[] nonce = new byte[NONCE_BYTES];
      random.nextBytes(nonce);
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      byte[] sealed = c.doFinal(plain);
      return PREFIX + Base64.getEncoder().encodeToString(ByteBuffer.allocate(nonce.length + sealed.length).put(nonce).put(sealed).array());
    } catch (GeneralSecurityException | JsonProcessingException e) {
      throw new IllegalStateException("Cannot encrypt FileIO properties", e);
    }
  }

  /**
   * Decrypts what {@link #encrypt} made.
   *
   * @return empty if the value is malformed or was encrypted with another key
   */
  public Optional<Map<String, String>> decrypt(String encrypted) {
    if (encrypted == null || !encrypted.startsWith(PREFIX)) {
      return Optional.empty();
    }
    try {
      byte[] all = Base64.getDecoder().decode(encrypted.substring(PREFIX.length()));
      if (all.length < NONCE_BYTES + TAG_BITS / 8) {
        return Optional.empty();
      }
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, all, 0, NONCE_BYTES));
      byte[] plain = c.doFinal(all, NONCE_BYTES, all.length - NONCE_BYTES);
      return Optional.of(Map.copyOf(JSON.readValue(plain, new TypeReference<Map<String, String>>() {})));
    } catch (GeneralSecurityException | IllegalArgumentException | IOException e) {
      return Optional.empty();
    }
  }
}
