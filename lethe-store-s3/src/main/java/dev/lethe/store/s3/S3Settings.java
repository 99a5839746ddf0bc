package dev.lethe.store.s3;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProviderChain;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.ContainerCredentialsProvider;
import software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider;
import software.amazon.awssdk.auth.credentials.InstanceProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.auth.credentials.SystemPropertyCredentialsProvider;
import software.amazon.awssdk.auth.credentials.WebIdentityTokenFileCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * How to reach an S3 store's bucket: endpoint, region, path-style addressing and credentials,
 * resolved from the store URI's parameters, then {@code lethe.store.s3.*} settings, then the AWS
 * environment (docs/design/0130-s3-store-substrate.md "Configuration"). {@link #toString} never
 * shows a secret.
 *
 * @param endpoint the S3 endpoint, or empty for AWS's own endpoint of the region
 * @param region the signing region, never null
 * @param pathStyle whether the bucket goes in the path ({@code http://host/bucket/key}) rather
 *     than the host name
 * @param credentials static credentials from {@code lethe.store.s3.*}, or empty for the AWS
 *     environment's chain
 */
public record S3Settings(Optional<URI> endpoint, String region, boolean pathStyle,
    Optional<AwsCredentialsProvider> credentials) {

  /** Prefix of the store's settings keys. */
  public static final String PREFIX = "lethe.store.s3.";
  /** Key of the endpoint setting (URI parameter {@code endpoint}). */
  public static final String ENDPOINT = PREFIX + "endpoint";
  /** Key of the region setting (URI parameter {@code region}). */
  public static final String REGION = PREFIX + "region";
  /** Key of the path-style setting (URI parameter {@code path-style}), {@code true} or {@code false}. */
  public static final String PATH_STYLE = PREFIX + "path-style";
  /** Key of the access key id setting; needs {@link #SECRET_ACCESS_KEY}. */
  public static final String ACCESS_KEY_ID = PREFIX + "access-key-id";
  /** Key of the secret access key setting; never printed. */
  public static final String SECRET_ACCESS_KEY = PREFIX + "secret-access-key";
  /** Key of the session token setting (optional, with the two above); never printed. */
  public static final String SESSION_TOKEN = PREFIX + "session-token";

  /** Every {@code lethe.store.s3.*} key. */
  public static final java.util.List<String> KEYS =
      java.util.List.of(ENDPOINT, REGION, PATH_STYLE, ACCESS_KEY_ID, SECRET_ACCESS_KEY, SESSION_TOKEN);

  /**
   * Collects the {@code lethe.store.s3.*} keys of a process that has no configuration file (the
   * CLI): a system property of the key's name wins over the environment variable named as {@code
   * lethe server} names it ({@code LETHE_STORE_S3_ACCESS_KEY_ID}: upper case, {@code .} and {@code -}
   * as {@code _}).
   *
   * @return the keys that are set, never null
   */
  public static Map<String, String> fromProcess(Map<String, String> environment, java.util.Properties properties) {
    Map<String, String> out = new java.util.HashMap<>();
    for (String key : KEYS) {
      String env = environment.get(key.toUpperCase(java.util.Locale.ROOT).replace('.', '_').replace('-', '_'));
      String value = properties.getProperty(key, env);
      if (value != null) {
        out.put(key, value);
      }
    }
    return Map.copyOf(out);
  }

  /** The region when neither the URI, the settings nor the environment name one. */
  public static final String DEFAULT_REGION = "us-east-1";

  /**
   * Resolves the settings of {@code location}: a URI parameter wins over the same {@code
   * lethe.store.s3.*} key, which wins over the environment ({@code AWS_REGION}, {@code
   * aws.region}; the credentials chain of the AWS SDK). Path-style defaults to true when an
   * endpoint is given (self-hosted servers rarely have per-bucket host names), false otherwise.
   *
   * @param settings {@code lethe.store.s3.*} keys (other keys are ignored), e.g. system properties
   *     or a server's configuration
   * @param environment the process environment ({@code AWS_REGION}, {@code AWS_DEFAULT_REGION})
   * @throws IllegalArgumentException for an endpoint that is not an absolute http(s) URI, a
   *     path-style that is not true/false, or an access key without its secret (or the reverse)
   */
  public static S3Settings resolve(S3Location location, Map<String, String> settings, Map<String, String> environment) {
    Optional<String> endpointText = setting(location, "endpoint", settings, ENDPOINT);
    Optional<URI> endpoint = endpointText.map(e -> endpoint(location, e));
    String region = setting(location, "region", settings, REGION)
        .or(() -> nonBlank(System.getProperty("aws.region")))
        .or(() -> nonBlank(environment.get("AWS_REGION")))
        .or(() -> nonBlank(environment.get("AWS_DEFAULT_REGION")))
        .orElse(DEFAULT_REGION);
    boolean pathStyle = setting(location, "path-style", settings, PATH_STYLE)
        .map(v -> bool(location, v))
        .orElse(endpoint.isPresent());
    Optional<String> id = nonBlank(settings.get(ACCESS_KEY_ID));
    Optional<String> secret = nonBlank(settings.get(SECRET_ACCESS_KEY));
    Optional<String> token = nonBlank(settings.get(SESSION_TOKEN));
    if (id.isPresent() != secret.isPresent()) {
      throw new IllegalArgumentException("Invalid settings of S3 store " + location + ": " + ACCESS_KEY_ID + " and "
          + SECRET_ACCESS_KEY + " must be given together (or neither, for the AWS environment's credentials)");
    }
    Optional<AwsCredentialsProvider> credentials = id.map(i -> StaticCredentialsProvider.create(token.isPresent()
        ? AwsSessionCredentials.create(i, secret.get(), token.get())
        : AwsBasicCredentials.create(i, secret.get())));
    return new S3Settings(endpoint, region, pathStyle, credentials);
  }

  /**
   * Builds a client: the JDK's URL-connection HTTP client, no SDK retries (the store counts its
   * own attempts), checksums only where S3 requires them (so servers without the newer checksum
   * headers work).
   */
  S3Client client() {
    var builder = S3Client.builder()
        .httpClient(UrlConnectionHttpClient.builder()
            .connectionTimeout(Duration.ofSeconds(5))
            .socketTimeout(Duration.ofSeconds(60))
            .build())
        .region(Region.of(region))
        .forcePathStyle(pathStyle)
        .credentialsProvider(credentials.orElseGet(S3Settings::environmentChain))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .overrideConfiguration(o -> o.retryStrategy(DefaultRetryStrategy.doNotRetry()));
    endpoint.ifPresent(builder::endpointOverride);
    return builder.build();
  }

  /**
   * The AWS SDK's usual sources, in its order: system properties, environment, web identity,
   * profile file, container, instance metadata ({@code AWS_EC2_METADATA_DISABLED} or {@code
   * aws.disableEc2Metadata} turns the last off).
   */
  private static AwsCredentialsProvider environmentChain() {
    return AwsCredentialsProviderChain.builder()
        .reuseLastProviderEnabled(true)
        .credentialsProviders(
            SystemPropertyCredentialsProvider.create(),
            EnvironmentVariableCredentialsProvider.create(),
            WebIdentityTokenFileCredentialsProvider.create(),
            ProfileCredentialsProvider.create(),
            ContainerCredentialsProvider.builder().build(),
            InstanceProfileCredentialsProvider.create())
        .build();
  }

  private static Optional<String> setting(S3Location location, String parameter, Map<String, String> settings,
      String key) {
    return Optional.ofNullable(location.parameters().get(parameter)).or(() -> nonBlank(settings.get(key)));
  }

  private static Optional<String> nonBlank(String s) {
    return s == null || s.isBlank() ? Optional.empty() : Optional.of(s.trim());
  }

  private static URI endpoint(S3Location location, String text) {
    URI uri;
    try {
      uri = URI.create(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid endpoint '" + text + "' of S3 store " + location
          + ": not a URI (e.g. http://127.0.0.1:9090)");
    }
    if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
        || uri.getHost() == null) {
      throw new IllegalArgumentException("Invalid endpoint '" + text + "' of S3 store " + location
          + ": expected http(s)://host[:port]");
    }
    return uri;
  }

  private static boolean bool(S3Location location, String v) {
    if (v.equalsIgnoreCase("true")) {
      return true;
    }
    if (v.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException("Invalid path-style '" + v + "' of S3 store " + location + ": expected true or false");
  }

  @Override
  public String toString() {
    return "S3Settings[endpoint=" + endpoint.map(URI::toString).orElse("(AWS)") + ", region=" + region
        + ", pathStyle=" + pathStyle + ", credentials=" + (credentials.isPresent() ? PREFIX + "*" : "AWS environment")
        + "]";
  }
}
