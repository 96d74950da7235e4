// check-ambiguities.sh copies each file of MustNotCompile/ here in turn.
