"""Recurrent layers and cells in the variants the corpus does not reach: tanh RNN,
no biases, LSTM projections, unbatched inputs, given states, every cell."""


class Layer(torch.nn.Module):
    def __init__(self, layer) -> None:
        super().__init__()
        self.layer = layer

    def forward(self, *args):
        return self.layer(*args)


class CellPair(torch.nn.Module):
    """An LSTMCell fed the state it returned: a state given and one defaulted."""

    def __init__(self) -> None:
        super().__init__()
        self.cell = torch.nn.LSTMCell(4, 6)

    def forward(self, x):
        h, c = self.cell(x)
        return self.cell(x, (h, c))


def _arrays(*shapes):
    return lambda rng: tuple(rng.standard_normal(shape, dtype=np.float32) for shape in shapes)


def _input_and_lstm_state(x, h, c):
    """An LSTM takes its state as one (h, c) argument."""
    return lambda rng: (_arrays(x)(rng)[0], _arrays(h, c)(rng))


def cases():
    nn = torch.nn
    Dim = torch.export.Dim
    layers = {
        "rnn_tanh": (lambda: nn.RNN(4, 5), [(3, 2, 4)]),
        "rnn_tanh_unbatched": (lambda: nn.RNN(4, 5, batch_first=True), [(3, 4)]),
        "rnn_no_bias_bidirectional": (lambda: nn.RNN(4, 5, bias=False, bidirectional=True), [(3, 2, 4)]),
        "gru_2layer_given_state": (lambda: nn.GRU(4, 5, num_layers=2, batch_first=True), [(2, 3, 4), (2, 2, 5)]),
        "lstm_projection": (lambda: nn.LSTM(4, 6, proj_size=3), [(3, 2, 4)]),
        "lstm_no_bias_projection_bidirectional": (
            lambda: nn.LSTM(4, 6, bias=False, proj_size=3, bidirectional=True, num_layers=2), [(3, 2, 4)]),
        "lstm_unbatched_given_state": (lambda: nn.LSTM(4, 5), [(3, 4), (1, 5), (1, 5)]),
        "rnn_cell_tanh": (lambda: nn.RNNCell(4, 5), [(2, 4), (2, 5)]),
        "rnn_cell_relu_no_bias": (lambda: nn.RNNCell(4, 5, bias=False, nonlinearity="relu"), [(2, 4)]),
        "rnn_cell_unbatched": (lambda: nn.RNNCell(4, 5), [(4,)]),
        "gru_cell_no_bias": (lambda: nn.GRUCell(4, 5, bias=False), [(2, 4), (2, 5)]),
        "lstm_cell_pair": (CellPair, [(2, 4)]),
    }
    cases = []
    for name, (make, shapes) in layers.items():
        inputs = _input_and_lstm_state(*shapes) if name == "lstm_unbatched_given_state" else _arrays(*shapes)
        cases.append(Case(name, (lambda make=make: Layer(make())), inputs=inputs))
    batch = Dim("batch", min=2, max=16)  # forward(*args): one spec for the args tuple
    cases.append(Case("lstm_projection_dynamic", lambda: Layer(nn.LSTM(4, 6, proj_size=3)),
                      inputs=_arrays((3, 2, 4)), dynamic_shapes=(({1: batch},),), second=_arrays((3, 5, 4))))
    cases.append(Case("rnn_cell_dynamic", lambda: Layer(nn.RNNCell(4, 5)), inputs=_arrays((2, 4), (2, 5)),
                      dynamic_shapes=(({0: batch}, {0: batch}),), second=_arrays((6, 4), (6, 5))))
    # torch's export fixes the sequence length (its op's fake kernel unrolls time): Dim.AUTO on it
    # specializes, only the batch stays dynamic
    cases.append(Case("gru_time_auto", lambda: Layer(nn.GRU(4, 5, batch_first=True)), inputs=_arrays((2, 3, 4)),
                      dynamic_shapes=(({0: batch, 1: Dim.AUTO},),), second=_arrays((5, 3, 4))))
    return cases
