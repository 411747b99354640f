
Bfetch_name_0J(—üÀ¡EÁªK­ÀÀC1AXa«ÀÀ³×¿É×åÀÇ2ùÀjiŸ@†¤sÀ