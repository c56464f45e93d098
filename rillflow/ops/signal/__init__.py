"""Signal processing (`tf.signal`): Fourier transforms (fft_ops), window functions
(window_ops), framing, spectrograms, mel and DCT (signal_ops)."""
