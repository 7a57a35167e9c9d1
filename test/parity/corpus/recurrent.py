"""Recurrent models: nn.LSTM (two layers, bidirectional, batch_first), nn.GRU
in a part-of-speech tagger, nn.RNN (three layers, relu, sequence-first, with an
initial state), an LSTM fed its initial (h, c), and a GRUCell unrolled by hand.
torch's export fixes the sequence length (its RNN decompositions unroll the
time loop), so only the batch is dynamic."""


class BiLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 12, num_layers=2, bidirectional=True, batch_first=True)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return out, h, c


class GRUTagger(nn.Module):
    def __init__(self, vocab=30, dim=8, hidden=8, tags=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.gru = nn.GRU(dim, hidden, batch_first=True, bidirectional=True)
        self.tagger = nn.Linear(2 * hidden, tags)

    def forward(self, words):
        features, _ = self.gru(self.embed(words))
        return F.log_softmax(self.tagger(features), dim=-1)


class ReluRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(6, 10, num_layers=3, nonlinearity="relu")

    def forward(self, x, h0):
        return self.rnn(x, h0)


class StatefulLSTM(nn.Module):
    """One LSTM step over a chunk, carrying (h, c) from the previous chunk."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8)
        self.head = nn.Linear(8, 3)

    def forward(self, x, state):
        out, (h, c) = self.lstm(x, state)
        return self.head(out), (h, c)


class UnrolledGRUCell(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(5, 7)
        self.out = nn.Linear(7, 2)

    def forward(self, x):
        h = torch.zeros(x.shape[0], 7)
        outputs = []
        for step in x.unbind(1):
            h = self.cell(step, h)
            outputs.append(self.out(h))
        return torch.stack(outputs, dim=1)


def cases():
    Dim = torch.export.Dim
    batch = Dim("batch", min=1, max=16)
    return [
        Case("lstm_2layer_bidirectional_batch_first", BiLSTM, inputs=lambda rng: (randn(rng, 2, 4, 8),),
             dynamic_shapes={"x": {0: batch}}, second=lambda rng: (randn(rng, 3, 4, 8),)),
        Case("gru_tagger", GRUTagger, inputs=lambda rng: (rng.integers(0, 30, (2, 5)),),
             dynamic_shapes={"words": {0: batch}}, second=lambda rng: (rng.integers(0, 30, (4, 5)),)),
        Case("rnn_relu_3layer_seq_first", ReluRNN, inputs=lambda rng: (randn(rng, 4, 2, 6), randn(rng, 3, 2, 10)),
             dynamic_shapes={"x": {1: batch}, "h0": {1: batch}},
             second=lambda rng: (randn(rng, 4, 5, 6), randn(rng, 3, 5, 10))),
        Case("lstm_carried_state", StatefulLSTM,
             inputs=lambda rng: (randn(rng, 3, 2, 6), (randn(rng, 1, 2, 8), randn(rng, 1, 2, 8))),
             dynamic_shapes={"x": {1: batch}, "state": ({1: batch}, {1: batch})},
             second=lambda rng: (randn(rng, 3, 4, 6), (randn(rng, 1, 4, 8), randn(rng, 1, 4, 8)))),
        Case("gru_cell_unrolled", UnrolledGRUCell, inputs=lambda rng: (randn(rng, 2, 4, 5),),
             dynamic_shapes={"x": {0: batch}}, second=lambda rng: (randn(rng, 3, 4, 5),)),
    ]
