package dev.lethe.catalog.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import org.apache.iceberg.io.SeekableInputStream;

/** An Iceberg {@link SeekableInputStream} over a channel {@link ConfinedLocalFiles} opened. */
final class ChannelInputStream extends SeekableInputStream {
  private final SeekableByteChannel channel;
  private final ByteBuffer one = ByteBuffer.allocate(1);

  ChannelInputStream(SeekableByteChannel channel) {
    this.channel = channel;
  }

  @Override
  public long getPos() throws IOException {
    return channel.position();
  }

  @Override
  public void seek(long newPos) throws IOException {
    channel.position(newPos);
  }

  @Override
  public int read() throws IOException {
    one.clear();
    int n;
    do {
      n = channel.read(one);
    } while (n == 0);
    return n < 0 ? -1 : one.get(0) & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    return channel.read(ByteBuffer.wrap(b, off, len));
  }

  @Override
  public long skip(long n) throws IOException {
    if (n <= 0) {
      return 0;
    }
    long pos = channel.position();
    long to = Math.min(channel.size(), pos + n);
    channel.position(to);
    return to - pos;
  }

  @Override
  public int available() throws IOException {
    return (int) Math.min(Integer.MAX_VALUE, Math.max(0, channel.size() - channel.position()));
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
